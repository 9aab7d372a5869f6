package proc_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tetherproc/tether/internal/proc"
)

// procArgs2 lays a kern.procargs2 buffer out as XNU does: argc, then
// from the path on, the path padded with NULs to an 8-byte boundary, argv
// and envp, padding to a boundary (none when envp ends on one), the apple
// strings, padding again. withheld cuts it after argv, as the sysctl does
// where the environment is withheld.
func procArgs2(path string, argv, env, apple []string, withheld bool) []byte {
	s := append([]byte(path), 0)
	pad := func() {
		for len(s)%8 != 0 {
			s = append(s, 0)
		}
	}
	pad()
	for _, a := range argv {
		s = append(append(s, a...), 0)
	}
	if !withheld {
		for _, e := range env {
			s = append(append(s, e...), 0)
		}
		pad()
		for _, a := range apple {
			s = append(append(s, a...), 0)
		}
		pad()
	}
	return append(binary.NativeEndian.AppendUint32(nil, uint32(len(argv))), s...)
}

// envEndsAligned reports whether envp of procArgs2 ends on a boundary:
// the layout with no NUL before the apple strings.
func envEndsAligned(path string, argv, env []string) bool {
	n := len(path) + 1
	n += (8 - n%8) % 8
	for _, s := range append(slices.Clone(argv), env...) {
		n += len(s) + 1
	}
	return n%8 == 0
}

// What exec_add_apple_strings adds on a Mac with Apple silicon (values
// made up, keys and shapes as the kernel writes them).
var appleStrings = []string{
	"pfz=0xffffff80200ac000",
	"stack_guard=0xa3c50e2d9b4f0058",
	"malloc_entropy=0x3f4e0e27a01c7d4b,0x7f5bc1ed9a2c6e31",
	"ptr_munge=0x6c25d3e1a1b9f04d",
	"main_stack=0x16f5fc000,0x800000,0x16b5fc000,0x4000000",
	"executable_file=0x1a01000012,0x2a3c51",
	"dyld_file=0x1a01000012,0xfffffff00a1b2c",
	"executable_cdhash=3f7a1b4c5d6e7f8091a2b3c4d5e6f708192a3b4c",
	"executable_boothash=9e8d7c6b5a4938271605f4e3d2c1b0a998877665",
	"arm64e_abi=os",
	"th_port=0x103",
}

// The environment comes back whole and without the kernel's strings
// whatever its length, so in both layouts.
func TestProcArgs2AppleStrings(t *testing.T) {
	layouts := map[bool]int{}
	for _, apple := range [][]string{
		appleStrings,
		// The optional ones too, and the last one ending on a boundary
		// (no padding at the very end).
		append([]string{"pfz=0x7ffffffff000", "MallocNanoZone=1"}, append(slices.Clone(appleStrings[1:]),
			"vm_force_4k_pages=1", "MallocExperiment=0x1", "hardened_heap=1", "dyld_hw_tpro=1", "HardenedRuntime=0x1", "security_config=0x0")...),
		// A kernel without "pfz=" (none since macOS 10.12 has been).
		appleStrings[1:],
	} {
		for k := 0; k < 16; k++ {
			for _, argv := range [][]string{{"server", "--port=8080"}, {"env", "TETHER=1", "ptr_munge=0x1"}} {
				env := []string{"PATH=/usr/bin:/bin", "TETHER=1", "TETHER_NAME=web", "HOME=/Users/dev" + strings.Repeat("x", k)}
				path := "/opt/homebrew/bin/server"
				aligned := envEndsAligned(path, argv, env)
				layouts[aligned]++
				name := fmt.Sprintf("%d-%v/%d", len(apple), aligned, k)
				got, err := proc.ParseProcArgs2(procArgs2(path, argv, env, apple, false))
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				want := proc.ProcArgs{Path: path, Args: argv, Env: env}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s: ParseProcArgs2 = %q\nwant %q", name, got, want)
				}
			}
		}
	}
	if layouts[true] == 0 || layouts[false] == 0 {
		t.Fatalf("layouts tried: %v; want both", layouts)
	}
}

func TestProcArgs2UserKeysKept(t *testing.T) {
	path, argv := "/usr/local/bin/srv", []string{"srv"}
	for _, tt := range []struct {
		name    string
		env     []string // the second entry is lengthened until envp ends aligned or not
		aligned bool
	}{
		// A kernel key in the middle of the environment is the user's.
		{"middle", []string{"MallocNanoZone=0", "X=", "TETHER=1", "PATH=/bin"}, true},
		{"middle, padded", []string{"MallocNanoZone=0", "X=", "TETHER=1", "PATH=/bin"}, false},
		// One at its end, before padding, too.
		{"end, padded", []string{"TETHER=1", "X=", "MallocNanoZone=0"}, false},
		{"end, padded, on a boundary", []string{"TETHER=1", "X=", "MallocNanoZone=0000000", "Y=1"}, false},
		// And one at its end right before the kernel's "pfz=", even one
		// that starts on a boundary.
		{"end, aligned", []string{"TETHER=1", "X=", "MallocNanoZone=0"}, true},
		{"end, aligned, on a boundary", []string{"TETHER=1", "X=", "MallocNanoZone=00000000"}, true},
		{"end, aligned, pfz", []string{"TETHER=1", "X=", "pfz=123"}, true},
		// A kernel key with no value is not the kernel's.
		{"no =", []string{"TETHER=1", "X=", "pfz"}, true},
	} {
		env := slices.Clone(tt.env)
		for envEndsAligned(path, argv, env) != tt.aligned {
			env[1] += "x"
		}
		got, err := proc.ParseProcArgs2(procArgs2(path, argv, env, appleStrings, false))
		if err != nil || !reflect.DeepEqual(got.Env, env) {
			t.Errorf("%s: Env = %q, %v; want %q", tt.name, got.Env, err, env)
		}
	}
}

func TestProcArgs2NoEnvironment(t *testing.T) {
	for _, argv := range [][]string{{"nc", "-l", "8"}, {"nc", "-l", "80"}} {
		// env -i: no environment, the apple strings right after argv.
		got, err := proc.ParseProcArgs2(procArgs2("/usr/bin/nc", argv, nil, appleStrings, false))
		if err != nil || len(got.Env) != 0 || !slices.Equal(got.Args, argv) {
			t.Errorf("env -i %q: %+v, %v; want no environment", argv, got, err)
		}
		// Withheld: the buffer ends after argv.
		got, err = proc.ParseProcArgs2(procArgs2("/usr/bin/nc", argv, []string{"TETHER=1"}, appleStrings, true))
		if err != nil || len(got.Env) != 0 || !slices.Equal(got.Args, argv) {
			t.Errorf("withheld %q: %+v, %v; want no environment", argv, got, err)
		}
	}
}

func TestProcArgs2Fixtures(t *testing.T) {
	tether := []string{"PATH=/usr/bin:/bin", "TETHER=1", "TETHER_NAME=web", "TETHER_RUN_ID=0123456789abcdef0123456789abcdef"}
	tests := []struct {
		file string
		want proc.ProcArgs
	}{
		// envp ends on a boundary: the apple strings follow at once.
		{"aligned.bin", proc.ProcArgs{Path: "/opt/homebrew/bin/server", Args: []string{"server", "--port=8080"},
			Env: append(slices.Clone(tether), "HOME=/Users/devxx")}},
		// envp does not: NULs before them.
		{"padded.bin", proc.ProcArgs{Path: "/opt/homebrew/bin/server", Args: []string{"server", "--port=8080"},
			Env: append(slices.Clone(tether), "HOME=/Users/dev")}},
		{"emptyenv.bin", proc.ProcArgs{Path: "/usr/bin/nc", Args: []string{"nc", "-l", "8"}}},
		{"withheld.bin", proc.ProcArgs{Path: "/usr/libexec/restricted", Args: []string{"restricted", "--daemon"}}},
	}
	for _, tt := range tests {
		got, err := proc.ParseProcArgs2(fixture(t, "procargs2", tt.file))
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseProcArgs2(%s) = %q, %v; want %q", tt.file, got, err, tt.want)
		}
	}
	// aligned.bin is what the old reading took apart wrongly: the
	// strings after its environment begin without a NUL.
	data := fixture(t, "procargs2", "aligned.bin")
	if !bytes.Contains(data, []byte("devxx\x00pfz=")) {
		t.Error("aligned.bin: no apple string right after the environment")
	}
}

// The kernel's keys as exec_add_apple_strings writes them: what alone may
// be dropped from what reads as the environment.
var kernelKeys = []string{"executable_path", "pfz", "MallocNanoZone", "stack_guard", "malloc_entropy", "ptr_munge",
	"main_stack", "executable_file", "dyld_file", "executable_cdhash", "executable_boothash", "dyld_flags",
	"subsystem_root_path", "ptrauth_disabled", "arm64e_abi", "th_port", "vm_force_4k_pages",
	"MallocDeferredReclaim", "MallocExperiment", "hardened_heap", "dyld_hw_tpro", "HardenedRuntime", "security_config"}

// Whatever the buffer holds, the environment is what a plain reading up
// to the first empty string gives, less only a tail of entries with the
// kernel's keys.
func FuzzProcArgs2Apple(f *testing.F) {
	for _, data := range fixtures(f, "procargs2") {
		f.Add(data)
	}
	f.Add(procArgs2("/bin/x", []string{"x"}, []string{"A=1234567", "pfz=1"}, appleStrings, false))
	f.Fuzz(func(t *testing.T, data []byte) {
		pa, err := proc.ParseProcArgs2(data)
		if err != nil {
			return
		}
		// The plain reading: skip argc, the path, NULs, argc arguments.
		rest := bytes.TrimLeft(data[4+bytes.IndexByte(data[4:], 0)+1:], "\x00")
		for range pa.Args {
			rest = rest[bytes.IndexByte(rest, 0)+1:]
		}
		var plain []string
		for {
			e, tail, ok := bytes.Cut(rest, []byte{0})
			if len(e) == 0 || !ok {
				break
			}
			plain = append(plain, string(e))
			rest = tail
		}
		if !slices.Equal(pa.Env, plain[:min(len(pa.Env), len(plain))]) || len(pa.Env) > len(plain) {
			t.Fatalf("Env %q is not a prefix of %q", pa.Env, plain)
		}
		for _, e := range plain[len(pa.Env):] {
			key, _, ok := strings.Cut(e, "=")
			if !ok || !slices.Contains(kernelKeys, key) {
				t.Fatalf("dropped %q, not a kernel string (Env %q)", e, pa.Env)
			}
		}
	})
}
