package proc

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
)

// ParseProcArgs2 parses a kern.procargs2 buffer: the strings that execve
// copied to the top of the new process's stack, as XNU lays them out
// (exec_extract_strings and exec_add_apple_strings in bsd/kern/kern_exec.c)
// and sysctl_procargsx hands them over (bsd/kern/kern_sysctl.c):
//
//	argc     a native-endian int32
//	path     the executable's path, NUL-terminated (the kernel strips
//	         the "executable_path=" it stores in front of it)
//	padding  NULs up to an 8-byte boundary
//	argv     argc NUL-terminated arguments
//	envp     NUL-terminated environment entries
//	padding  NULs up to an 8-byte boundary: none when envp ends on one
//	apple    the kernel's own NUL-terminated strings for the new process
//	         (pfz=, stack_guard=, malloc_entropy=, ptr_munge=,
//	         main_stack=, executable_file=, executable_cdhash=, th_port=
//	         and others), then padding to an 8-byte boundary again
//
// The boundaries count from the start of the path. Arguments are skipped
// by count, never by shape: an argument may look like KEY=VALUE. The
// environment ends at the first empty string. Where envp ends on a
// boundary no empty string comes before the apple strings, and they
// would read as environment entries: so when no string follows the
// environment's end, the last run of its entries whose keys are the
// kernel's is dropped, from the last "pfz=" on a boundary among them (the
// kernel's first string since macOS 10.12), else from the first of them
// on a boundary. Only an entry of the process's own with one of the
// kernel's keys, at the very end of its environment and on a boundary,
// can be taken for one of them.
//
// Where the kernel withholds the environment from the caller (a
// CS_RESTRICT process, read by another process while System Integrity
// Protection is on) the buffer ends after argv: Env is empty.
func ParseProcArgs2(data []byte) (ProcArgs, error) {
	var pa ProcArgs
	if len(data) < 4 {
		return pa, fmt.Errorf("parse procargs2: %d bytes, want at least 4", len(data))
	}
	argc := int32(binary.NativeEndian.Uint32(data))
	if argc < 0 {
		return pa, fmt.Errorf("parse procargs2: negative argc %d", argc)
	}
	rest := data[4:]
	path, rest, ok := bytes.Cut(rest, []byte{0})
	if !ok {
		return pa, fmt.Errorf("parse procargs2: executable path not terminated")
	}
	pa.Path = string(path)
	rest = bytes.TrimLeft(rest, "\x00")
	if int(argc) > len(rest) {
		return pa, fmt.Errorf("parse procargs2: argc %d, but %d bytes left", argc, len(rest))
	}
	pa.Args = make([]string, 0, argc)
	for i := 0; i < int(argc); i++ {
		arg, tail, ok := bytes.Cut(rest, []byte{0})
		if !ok {
			return pa, fmt.Errorf("parse procargs2: argument %d of %d not terminated", i, argc)
		}
		pa.Args = append(pa.Args, string(arg))
		rest = tail
	}
	// Where each entry starts, counted from the path, for the boundaries.
	var starts []int
	for len(rest) > 0 {
		entry, tail, ok := bytes.Cut(rest, []byte{0})
		if len(entry) == 0 {
			// Padding. With more strings after it, it is the padding
			// before the apple strings: the environment is whole.
			if len(bytes.TrimLeft(rest, "\x00")) > 0 {
				return pa, nil
			}
			break
		}
		if !ok {
			// A cut-off last entry is not trusted to be whole.
			break
		}
		pa.Env = append(pa.Env, string(entry))
		starts = append(starts, len(data)-len(rest)-4)
		rest = tail
	}
	if n := appleStart(pa.Env, starts); n == 0 {
		pa.Env = nil
	} else {
		pa.Env = pa.Env[:n:n]
	}
	return pa, nil
}

// appleStart is where the kernel's own strings begin among entries read
// as the environment (starting at starts, from the path): len(env) when
// none are there.
func appleStart(env []string, starts []int) int {
	run := len(env)
	for run > 0 && isAppleKey(env[run-1]) {
		run--
	}
	cut := len(env)
	for i := len(env) - 1; i >= run; i-- {
		if starts[i]%8 != 0 {
			continue
		}
		if strings.HasPrefix(env[i], "pfz=") {
			return i
		}
		cut = i
	}
	return cut
}

// appleKeys are the keys of the strings XNU's exec adds after the
// environment, in every release from macOS 10.12 to 15
// (exec_add_apple_strings), "executable_path" among them though the
// sysctl strips it from the front.
var appleKeys = map[string]bool{
	"executable_path":       true,
	"pfz":                   true,
	"MallocNanoZone":        true,
	"stack_guard":           true,
	"malloc_entropy":        true,
	"ptr_munge":             true,
	"main_stack":            true,
	"executable_file":       true,
	"dyld_file":             true,
	"executable_cdhash":     true,
	"executable_boothash":   true,
	"dyld_flags":            true,
	"subsystem_root_path":   true,
	"ptrauth_disabled":      true,
	"arm64e_abi":            true,
	"th_port":               true,
	"vm_force_4k_pages":     true,
	"MallocDeferredReclaim": true,
	"MallocExperiment":      true,
	"hardened_heap":         true,
	"dyld_hw_tpro":          true,
	"HardenedRuntime":       true,
	"security_config":       true,
}

// isAppleKey reports whether entry's key is one the kernel uses.
func isAppleKey(entry string) bool {
	key, _, ok := strings.Cut(entry, "=")
	return ok && appleKeys[key]
}
