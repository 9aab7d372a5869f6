package proc

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// ProcArgs is what macOS's kern.procargs2 sysctl returns for a process.
type ProcArgs struct {
	Path string   // the executable's path, as given to execve
	Args []string // argv
	Env  []string // the environment
}

// ParseProcArgs2 parses a kern.procargs2 buffer: a native-endian int32
// argc, the executable path, NUL padding, argc NUL-terminated arguments,
// then NUL-terminated environment entries up to an empty string (after
// which the kernel's own "apple" strings follow and are ignored). Arguments
// are skipped by count, never by shape: an argument may look like KEY=VALUE.
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
	for len(rest) > 0 && rest[0] == 0 {
		rest = rest[1:]
	}
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
	for len(rest) > 0 {
		entry, tail, ok := bytes.Cut(rest, []byte{0})
		if len(entry) == 0 {
			break
		}
		if !ok {
			// A cut-off last entry is not trusted to be whole.
			break
		}
		pa.Env = append(pa.Env, string(entry))
		rest = tail
	}
	return pa, nil
}
