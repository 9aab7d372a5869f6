package proc_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/marker"
)

func fixture(t testing.TB, parts ...string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(append([]string{"testdata"}, parts...)...))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func fixtures(t testing.TB, dir string) map[string][]byte {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", dir, "*"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixtures in testdata/%s: %v", dir, err)
	}
	out := map[string][]byte{}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(p)] = data
	}
	return out
}

func TestParseStat(t *testing.T) {
	tests := []struct {
		file    string
		want    proc.Stat
		zombie  bool
		kthread bool
	}{
		{"cat.stat", proc.Stat{PID: 5983, Comm: "cat", State: 'R', PPID: 5965, PGID: 5965, Session: 1051, Flags: 4194304, Threads: 1, StartTime: 31855}, false, false},
		{"hostile.stat", proc.Stat{PID: 5971, Comm: "x) Z (y z", State: 'S', PPID: 5970, PGID: 5965, Session: 1051, Flags: 4194304, Threads: 1, StartTime: 31814}, false, false},
		{"newline.stat", proc.Stat{PID: 5978, Comm: "a\nb) R 1 (", State: 'S', PPID: 5977, PGID: 5965, Session: 1051, Flags: 4194304, Threads: 1, StartTime: 31835}, false, false},
		{"kthreadd.stat", proc.Stat{PID: 2, Comm: "kthreadd", State: 'S', Flags: 2129984, Threads: 1, StartTime: 24}, false, true},
		{"threads.stat", proc.Stat{PID: 22062, Comm: "python3", State: 'R', PPID: 22019, PGID: 22019, Session: 921, Flags: 4194304, Threads: 4, StartTime: 5926773}, false, false},
		{"zombie.stat", proc.Stat{PID: 6049, Comm: "python3", State: 'Z', PPID: 6008, PGID: 6006, Session: 1051, Flags: 4227148, Threads: 1, StartTime: 32200}, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			got, err := proc.ParseStat(fixture(t, "proc", "stat", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("ParseStat = %+v, want %+v", got, tt.want)
			}
			if got.Zombie() != tt.zombie || got.KernelThread() != tt.kthread {
				t.Errorf("Zombie()=%v KernelThread()=%v, want %v %v", got.Zombie(), got.KernelThread(), tt.zombie, tt.kthread)
			}
		})
	}
	for _, bad := range []string{"short.stat", "noparen.stat"} {
		if _, err := proc.ParseStat(fixture(t, "proc", "stat", bad)); err == nil {
			t.Errorf("ParseStat(%s): no error", bad)
		}
	}
}

func TestParseStatus(t *testing.T) {
	tests := []struct {
		file string
		want proc.Status
	}{
		{"sleep.status", proc.Status{TGID: 5971, UID: 0, NSpid: []int{5971}}},
		{"thread.status", proc.Status{TGID: 6008, UID: 0, NSpid: []int{6050}}},
		{"zombie.status", proc.Status{TGID: 6049, UID: 0, NSpid: []int{6049}}},
		// PID 1 of a PID namespace nested in the table's.
		{"nested.status", proc.Status{TGID: 21304, UID: 0, NSpid: []int{21304, 1}}},
	}
	for _, tt := range tests {
		got, err := proc.ParseStatus(fixture(t, "proc", "status", tt.file))
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseStatus(%s) = %+v, %v; want %+v", tt.file, got, err, tt.want)
		}
	}
	if _, err := proc.ParseStatus(fixture(t, "proc", "status", "notgid.status")); err == nil {
		t.Error("ParseStatus(notgid.status): no error")
	}
}

func TestParseEnviron(t *testing.T) {
	tests := []struct {
		file string
		want []string
	}{
		{"tethered.environ", []string{"PATH=/usr/bin:/bin", "HOME=/root", "TETHER=1", "TETHER_NAME=web",
			"TETHER_SUPERVISOR=4200:31337", "TETHER_RUN_ID=0123456789abcdef0123456789abcdef"}},
		{"seed.environ", []string{"PATH=/usr/bin", "SYSTEMPROMPT_SUBPROCESS=1", "MCP_SERVICE_ID=files"}},
		{"lookalike.environ", []string{"TETHER=1 ", "TETHER_NAME=files2", "XTETHER=1", "TETHER="}},
		// The unterminated last entry may be cut short: never trusted.
		{"truncated.environ", []string{"TETHER=1"}},
		{"empty.environ", nil},
		{"holes.environ", []string{"A=1", "", "=x", "noequals", "TETHER=1"}},
	}
	for _, tt := range tests {
		got := proc.ParseEnviron(fixture(t, "proc", "environ", tt.file))
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseEnviron(%s) = %q, want %q", tt.file, got, tt.want)
		}
	}
}

func TestParseCmdline(t *testing.T) {
	got := proc.ParseCmdline([]byte("server\x00--port\x008080\x00"))
	if want := []string{"server", "--port", "8080"}; !reflect.DeepEqual(got, want) {
		t.Errorf("ParseCmdline = %q, want %q", got, want)
	}
	// A rewritten title without its NUL is still shown.
	if got := proc.ParseCmdline([]byte("nginx: worker")); !reflect.DeepEqual(got, []string{"nginx: worker"}) {
		t.Errorf("ParseCmdline(title) = %q", got)
	}
}

func TestParseProcArgs2(t *testing.T) {
	tests := []struct {
		file string
		want proc.ProcArgs
	}{
		{"simple.bin", proc.ProcArgs{Path: "/usr/local/bin/server", Args: []string{"server", "--port=8080"},
			Env: []string{"PATH=/usr/bin", "TETHER=1", "TETHER_NAME=web"}}},
		// Arguments that look like KEY=VALUE are skipped by count.
		{"argkv.bin", proc.ProcArgs{Path: "/bin/env", Args: []string{"env", "TETHER=1", "TETHER_NAME=web"},
			Env: []string{"PATH=/usr/bin"}}},
		{"noenv.bin", proc.ProcArgs{Path: "/bin/hardened", Args: []string{"hardened"}}},
	}
	for _, tt := range tests {
		got, err := proc.ParseProcArgs2(fixture(t, "procargs2", tt.file))
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseProcArgs2(%s) = %+v, %v; want %+v", tt.file, got, err, tt.want)
		}
		if slices.Contains(got.Env, "TETHER=1") && tt.file == "argkv.bin" {
			t.Error("argkv.bin: arguments were taken for the environment")
		}
	}
	for _, bad := range []string{"truncated.bin", "short.bin"} {
		if _, err := proc.ParseProcArgs2(fixture(t, "procargs2", bad)); err == nil {
			t.Errorf("ParseProcArgs2(%s): no error", bad)
		}
	}
}

func FuzzParseStat(f *testing.F) {
	for _, data := range fixtures(f, "proc/stat") {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := proc.ParseStat(data)
		if err != nil {
			return
		}
		// The command name is everything between the first '(' and the
		// last ')', whatever it holds.
		if !bytes.Contains(data, []byte("("+s.Comm+")")) {
			t.Errorf("comm %q not found in %q", s.Comm, data)
		}
		if strings.ContainsRune(string(data[bytes.LastIndexByte(data, ')')+1:]), ')') {
			t.Errorf("fields after the last ')' hold a ')'")
		}
	})
}

func FuzzParseStatus(f *testing.F) {
	for _, data := range fixtures(f, "proc/status") {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		st, err := proc.ParseStatus(data)
		if err == nil && (st.TGID < 0 || st.UID < 0) {
			t.Errorf("ParseStatus = %+v with no error", st)
		}
	})
}

func FuzzParseEnviron(f *testing.F) {
	for _, data := range fixtures(f, "proc/environ") {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		env := proc.ParseEnviron(data)
		// Every entry returned was NUL-terminated in the input, in order:
		// joined back, they are a prefix of it.
		var joined []byte
		for _, e := range env {
			if strings.IndexByte(e, 0) >= 0 {
				t.Fatalf("entry %q holds a NUL", e)
			}
			joined = append(append(joined, e...), 0)
		}
		if !bytes.HasPrefix(data, joined) {
			t.Fatalf("entries %q are not a prefix of %q", env, data)
		}
		if rest := data[len(joined):]; bytes.IndexByte(rest, 0) >= 0 {
			t.Fatalf("a terminated entry was dropped: rest %q", rest)
		}
	})
}

func FuzzParseProcArgs2(f *testing.F) {
	for _, data := range fixtures(f, "procargs2") {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		pa, err := proc.ParseProcArgs2(data)
		if err != nil {
			return
		}
		if argc := int(int32(binary.NativeEndian.Uint32(data))); len(pa.Args) != argc {
			t.Errorf("%d arguments, argc %d", len(pa.Args), argc)
		}
		for _, e := range pa.Env {
			if e == "" {
				t.Error("empty environment entry returned")
			}
		}
	})
}

// The raw-blob matcher of the scan agrees with probe's Match on parsed
// entries, whatever the blob holds.
func FuzzMatchEnviron(f *testing.F) {
	for _, data := range fixtures(f, "proc/environ") {
		f.Add(data, "web")
		f.Add(data, "")
		f.Add(data, "files")
	}
	f.Fuzz(func(t *testing.T, blob []byte, name string) {
		for _, m := range []marker.Markers{{}, {MarkerVar: "SYSTEMPROMPT_SUBPROCESS", NameVar: "MCP_SERVICE_ID"}} {
			want := m.Match(proc.ParseEnviron(blob), name)
			var entries [][]byte
			for _, e := range m.Entries(name) {
				entries = append(entries, []byte(e))
			}
			if got := proc.HasEntries(blob, entries); got != want {
				t.Fatalf("%+v: HasEntries(%q, %q) = %v, Match = %v", m, blob, entries, got, want)
			}
		}
	})
}

func TestOverwritten(t *testing.T) {
	tests := []struct {
		file string
		want bool
	}{
		{"perl-title.environ", true},   // Perl's $0: blanks, then a NUL
		{"setproctitle.environ", true}, // the title, then NULs
		{"tethered.environ", false},
		{"holes.environ", false}, // odd entries after a KEY=VALUE first one
		{"empty.environ", false}, // env -i
	}
	for _, tt := range tests {
		env := proc.ParseEnviron(fixture(t, "proc", "environ", tt.file))
		if got := proc.Overwritten(env, nil); got != tt.want {
			t.Errorf("Overwritten(%s = %q) = %v, want %v", tt.file, env, got, tt.want)
		}
	}
	if cmd := []string{"nginx: worker process"}; !proc.Overwritten(cmd, cmd) {
		t.Error("an environment that reads as the command line: not overwritten, want overwritten")
	}
}

func TestParseMountInfo(t *testing.T) {
	ms := proc.ParseMountInfo(fixture(t, "proc", "mountinfo", "hybrid"))
	if len(ms) != 3 {
		t.Fatalf("ParseMountInfo(hybrid) = %+v; want 3 mounts, the garbage line skipped", ms)
	}
	if ms[0].Point != "/proc" || ms[0].FSType != "proc" || !ms[0].Hides() || ms[0].HidePID() != "invisible" {
		t.Errorf("proc mount %+v; want /proc, proc, hidepid=invisible", ms[0])
	}
	if ms[1].Point != "/sys/fs/cgroup/unified" || ms[1].Root != "/" || ms[1].FSType != "cgroup2" || ms[1].Hides() {
		t.Errorf("cgroup2 mount %+v; want it at /sys/fs/cgroup/unified", ms[1])
	}
}

func TestParseCgroup(t *testing.T) {
	tests := []struct {
		file, want string
		err        error
	}{
		{"hybrid", "/", nil},
		{"unified", "/user.slice/user-1000.slice/user@1000.service/app.slice/tether-0123456789abcdef0123456789abcdef/sub", nil},
		{"v1only", "", proc.ErrNoCgroup2},
	}
	for _, tt := range tests {
		got, err := proc.ParseCgroup(fixture(t, "proc", "cgroup", tt.file))
		if got != tt.want || !errors.Is(err, tt.err) {
			t.Errorf("ParseCgroup(%s) = %q, %v; want %q, %v", tt.file, got, err, tt.want, tt.err)
		}
	}
	if _, err := proc.ParseCgroup([]byte("0::relative\n")); err == nil {
		t.Error("ParseCgroup of a relative path: no error")
	}
}

// EnvValue reads the value of the first whole entry of the variable, as
// ParseEnviron splits the blob.
func TestEnvValue(t *testing.T) {
	prefix := []byte(marker.RunIDVar + "=")
	for _, tt := range []struct{ blob, want string }{
		{"A=1\x00TETHER_RUN_ID=abc\x00", "abc"},
		{"TETHER_RUN_IDX=1\x00TETHER_RUN_ID=b\x00TETHER_RUN_ID=c\x00", "b"},
		{"TETHER_RUN_ID=\x00", ""},
		{"A=1\x00TETHER_RUN_ID=abc", ""}, // cut off: no whole entry
		{"", ""},
	} {
		if got := proc.EnvValue([]byte(tt.blob), prefix); got != tt.want {
			t.Errorf("EnvValue(%q) = %q; want %q", tt.blob, got, tt.want)
		}
	}
	for _, data := range fixtures(t, "proc/environ") {
		if got, want := proc.EnvValue(data, prefix), firstValue(proc.ParseEnviron(data), marker.RunIDVar); got != want {
			t.Errorf("EnvValue of a fixture = %q; its parsed entries give %q", got, want)
		}
	}
}

func firstValue(env []string, key string) string {
	for _, e := range env {
		if v, ok := strings.CutPrefix(e, key+"="); ok {
			return v
		}
	}
	return ""
}
