package ptree_test

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/tetherproc/tether/internal/kill"
	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/proctest"
	"github.com/tetherproc/tether/internal/ptree"
	"github.com/tetherproc/tether/procid"
)

// A process that left its tree between two readings of the last PID is
// found among the processes born between them, with its child; its
// threads, which /proc answers for by their ids too, are not taken for
// processes; one born outside the span is not read.
func TestStraysBorn(t *testing.T) {
	fs := proc.Host()
	from, ok := fs.LastPID()
	if !ok {
		t.Skip("no ns_last_pid to read here")
	}
	entry := "PROCTEST_STRAY=" + proctest.TestID(t)
	cmd := exec.Command("/bin/sh", "-c", `sh -c 'setsid sh -c "sleep 60 & exec sleep 61" >/dev/null 2>&1 & echo $! $$'`)
	cmd.Env = append(proctest.Env(t), entry, "PROCTEST_VALUE=v1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	var pid, parent int
	if _, err := fmt.Sscan(string(out), &pid, &parent); err != nil {
		t.Fatalf("no stray: %q", out)
	}
	var stray procid.ID
	proctest.Eventually(t, "the stray to leave its parent and have its child", func() bool {
		st, err := fs.Stat(pid)
		stray = procid.ID{PID: pid, StartTime: st.StartTime}
		return err == nil && st.PPID != parent && st.Comm == "sleep" && len(ptree.Subtree(fs, pid, 0)) == 1
	})
	child := ptree.Subtree(fs, pid, 0)[0]
	t.Cleanup(func() {
		for _, m := range []procid.ID{stray, child} {
			_ = kill.SignalIn(fs, m, unix.SIGKILL) // the test's own
		}
	})
	to, ok := fs.LastPID()
	if !ok {
		t.Fatal("ns_last_pid read once, not twice")
	}

	// The child's execve of sleep may still be under way: its
	// environment is then unreadable, and it is reported executing.
	var vs []ptree.Valued
	var executing []int
	proctest.Eventually(t, "no process of the span mid-execve", func() bool {
		vs, executing, ok = ptree.StraysBorn(fs, from, to, 0, []string{"PROCTEST_NONE=1", entry}, "PROCTEST_VALUE", nil)
		return !ok || len(executing) == 0
	})
	if !ok {
		t.Fatalf("StraysBorn(%d, %d) refused a span of a few processes", from, to)
	}
	want := []ptree.Valued{{ID: stray, Value: "v1"}, {ID: child, Value: "v1"}}
	if !slices.Equal(vs, want) {
		t.Errorf("StraysBorn = %v (executing %v), want %v", vs, executing, want)
	}
	if vs, _, _ := ptree.StraysBorn(fs, to, to, 0, []string{entry}, "PROCTEST_VALUE", nil); len(vs) != 0 {
		t.Errorf("StraysBorn over an empty span = %v, want none", vs)
	}
	known := func(pid int) bool { return pid == stray.PID || pid == child.PID }
	if vs, _, _ := ptree.StraysBorn(fs, from, to, 0, []string{entry}, "PROCTEST_VALUE", known); len(vs) != 0 {
		t.Errorf("StraysBorn with the stray known = %v, want none", vs)
	}
}

// The test process's own threads carry its environment and have ids
// handed out as PIDs are: a search by birth over them finds the process
// (here older than the span) and none of its threads.
func TestStraysBornSkipsThreads(t *testing.T) {
	fs := proc.Host()
	self := os.Getpid()
	tids, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", self))
	if err != nil {
		t.Fatal(err)
	}
	last := 0
	for _, d := range tids {
		var tid int
		if _, err := fmt.Sscan(d.Name(), &tid); err == nil && tid != self {
			last = max(last, tid)
		}
	}
	if last == 0 {
		t.Skip("a single thread")
	}
	env, err := fs.Environ(self)
	if err != nil || len(env) == 0 {
		t.Skip("own environment unreadable")
	}
	vs, _, ok := ptree.StraysBorn(fs, self, last, 0, []string{env[0]}, "PATH", nil)
	if !ok {
		t.Fatalf("StraysBorn(%d, %d) refused", self, last)
	}
	for _, v := range vs {
		if v.PID != self && slices.ContainsFunc(tids, func(d os.DirEntry) bool { return d.Name() == fmt.Sprint(v.PID) }) {
			t.Errorf("StraysBorn took thread %d for a process", v.PID)
		}
	}
}

// Born counts a span across pid_max as the PIDs past from and the low
// ones up to to (where init's 1 is), and refuses one longer than it
// reads.
func TestBornSpan(t *testing.T) {
	fs := proc.Host()
	top := fs.MaxPID()
	ms, ok := ptree.Born(fs, top-2, 1, 0)
	if !ok {
		t.Fatalf("Born(%d, 1) refused a span of 3", top-2)
	}
	if !slices.ContainsFunc(ms, func(m procid.ID) bool { return m.PID == 1 }) {
		t.Errorf("Born(%d, 1) = %v, want PID 1 among them", top-2, ms)
	}
	if _, ok := ptree.Born(fs, 1, top, 0); ok && top-1 > 1<<14 {
		t.Errorf("Born(1, %d) read the whole table, want it refused", top)
	}
	if _, ok := ptree.Born(fs, -1, 5, 0); ok {
		t.Error("Born(-1, 5) accepted, want refused")
	}
}
