package proc_test

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/tetherproc/tether/internal/proc"
)

// The readers run on a process table laid out on disk as /proc is:
// testdata/fs holds a tethered process (5971) with two children, one in
// the middle of an execve (5983) and one a zombie (6049), and a thread id
// (6050) of another process.
var fixtureFS = proc.NewFS("testdata/fs")

func TestFSProcess(t *testing.T) {
	p, err := fixtureFS.Process(5971)
	want := proc.Process{PID: 5971, PPID: 5970, PGID: 5965, Session: 1051, UID: 0, StartTime: 31814, Comm: "x) Z (y z", NSpid: []int{5971}}
	if err != nil || !reflect.DeepEqual(p, want) {
		t.Errorf("Process(5971) = %+v, %v; want %+v", p, err, want)
	}
	var te *proc.ThreadError
	if _, err := fixtureFS.Process(6050); !errors.As(err, &te) || te.TGID != 6008 {
		t.Errorf("Process(6050) = %v; want a thread of 6008", err)
	}
	if _, err := fixtureFS.Process(9999); !errors.Is(err, proc.ErrGone) {
		t.Errorf("Process(9999) = %v; want ErrGone", err)
	}
	if z, err := fixtureFS.Process(6049); err != nil || !z.Zombie {
		t.Errorf("Process(6049) = %+v, %v; want a zombie", z, err)
	}
}

func TestFSEnvironAndCmdline(t *testing.T) {
	env, err := fixtureFS.Environ(5971)
	if err != nil || !slices.Contains(env, "TETHER_NAME=web") {
		t.Errorf("Environ(5971) = %q, %v; want the tethered fixture", env, err)
	}
	if cmd, err := fixtureFS.Cmdline(5971); err != nil || !reflect.DeepEqual(cmd, []string{"srv", "--port", "8080"}) {
		t.Errorf("Cmdline(5971) = %q, %v; want [srv --port 8080]", cmd, err)
	}
	if !fixtureFS.Executing(5983) || fixtureFS.Executing(5971) || fixtureFS.Executing(6049) {
		t.Errorf("Executing: 5983 %v, 5971 %v, 6049 %v; want true, false, false",
			fixtureFS.Executing(5983), fixtureFS.Executing(5971), fixtureFS.Executing(6049))
	}
	if _, err := fixtureFS.Environ(5983); !errors.Is(err, proc.ErrExecuting) || !errors.Is(err, proc.ErrUnverifiable) {
		t.Errorf("Environ(5983) = %v; want ErrExecuting, an ErrUnverifiable", err)
	}
	if _, err := fixtureFS.Environ(6049); !errors.Is(err, proc.ErrGone) {
		t.Errorf("Environ(6049) of a zombie = %v; want ErrGone", err)
	}
}

func TestFSPIDs(t *testing.T) {
	pids, err := fixtureFS.PIDs()
	slices.Sort(pids)
	if want := []int{5971, 5983, 6049, 6050}; err != nil || !reflect.DeepEqual(pids, want) {
		t.Errorf("PIDs() = %v, %v; want %v", pids, err, want)
	}
}

func TestFSSystemFiles(t *testing.T) {
	if got := fixtureFS.MaxPID(); got != 4194303 {
		t.Errorf("MaxPID() = %d; want 4194303", got)
	}
	at, err := fixtureFS.StartedAt(250)
	if want := time.Unix(1700000002, 5e8); err != nil || !at.Equal(want) {
		t.Errorf("StartedAt(250) = %v, %v; want %v", at, err, want)
	}
}

// A process reads as in the middle of an execve only while it is young:
// one whose environment has been empty for longer unmapped it on
// purpose, and no scan is held up by it.
func TestYoung(t *testing.T) {
	dir := t.TempDir()
	fs := proc.NewFS(dir)
	for _, tt := range []struct {
		uptime string
		start  uint64
		want   bool
	}{
		{"319.80 600.00\n", 31855, true},  // 1.25 s old
		{"321.56 600.00\n", 31855, false}, // 3.01 s old
		{"9000.00 1.00\n", 31855, false},
		{"garbage\n", 31855, false},
	} {
		if err := os.WriteFile(filepath.Join(dir, "uptime"), []byte(tt.uptime), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := fs.Young(tt.start); got != tt.want {
			t.Errorf("Young(%d) with uptime %q = %v, want %v", tt.start, tt.uptime, got, tt.want)
		}
	}
	if proc.NewFS(t.TempDir()).Young(1) {
		t.Error("Young without an uptime file = true, want false")
	}
}
