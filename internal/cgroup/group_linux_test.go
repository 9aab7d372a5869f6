package cgroup

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/procid"
)

// newTestGroup makes a run's group below the test's own, or skips where
// none can be made; the test removes it at the end, killing what is
// left in it.
func newTestGroup(t *testing.T, stamp []string) (Hierarchy, *Group) {
	t.Helper()
	h, err := Find(proc.Host())
	if err != nil {
		t.Skipf("no cgroup v2 here: %v", err)
	}
	own, err := h.Of(proc.Host(), os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	g, err := Create(own, fmt.Sprintf("0123456789abcdef01234567%08x", os.Getpid()), stamp)
	if err != nil {
		t.Skipf("no cgroup can be made here: %v", err)
	}
	t.Cleanup(func() {
		_ = g.Close()
		_ = Kill(g.Dir)
		if err := Remove(g.Dir, 5*time.Second); err != nil {
			t.Error(err)
		}
	})
	return h, g
}

// startIn starts a shell born in g, which starts more; it is reaped in
// the background.
func startIn(t *testing.T, g *Group, script string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: g.FD(), Setsid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start into %s: %v", g.Dir, err)
	}
	go func() { _ = cmd.Wait() }()
	return cmd
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 10s", what)
		}
	}
}

func TestGroupStampMembersKill(t *testing.T) {
	stamp := []string{"TETHER=1", "TETHER_NAME=web", "TETHER_RUN_ID=x"}
	h, g := newTestGroup(t, stamp)
	if got, err := Stamp(g.Dir); err != nil || !slices.Equal(got, stamp) {
		t.Errorf("Stamp = %q, %v; want %q", got, err, stamp)
	}
	// A session of its own and a double fork: still in the group.
	cmd := startIn(t, g, "sleep 300 & (setsid sleep 300 &) ; exec sleep 300")
	waitFor(t, "three members", func() bool { return len(h.Members(proc.Host(), g.Dir)) >= 3 })
	if !slices.ContainsFunc(h.Members(proc.Host(), g.Dir), func(m procid.ID) bool { return m.PID == cmd.Process.Pid }) {
		t.Errorf("Members(%s) = %v; want the shell %d among them", g.Dir, h.Members(proc.Host(), g.Dir), cmd.Process.Pid)
	}
	if !Populated(g.Dir) {
		t.Error("Populated = false with members in it")
	}
	if err := Kill(g.Dir); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the group empty after Kill", func() bool { return !Populated(g.Dir) })
}

// Before Linux 5.14 there is no cgroup.kill: the group is frozen, each
// member killed and the group thawed until it is empty, also while a
// member keeps forking.
func TestFreezeAndKill(t *testing.T) {
	h, g := newTestGroup(t, nil)
	startIn(t, g, "i=0; while [ $i -lt 300 ]; do sleep 300 & i=$((i+1)); done; wait")
	waitFor(t, "the forker under way", func() bool { return len(h.Members(proc.Host(), g.Dir)) >= 20 })
	freezeAndKill(g.Dir)
	if Populated(g.Dir) {
		t.Errorf("%d members left after freezeAndKill", len(h.Members(proc.Host(), g.Dir)))
	}
}

func TestParseProcsAndEvents(t *testing.T) {
	pids, err := parseProcs([]byte("12\n0\n345\n"))
	if err != nil || !slices.Equal(pids, []int{12, 345}) {
		t.Errorf("parseProcs = %v, %v", pids, err)
	}
	if _, err := parseProcs([]byte("12\nx\n")); err == nil {
		t.Error("parseProcs of a bad PID: no error")
	}
	if populated([]byte("populated 0\nfrozen 0\n")) || !populated([]byte("populated 1\nfrozen 0\n")) {
		t.Error("populated misreads cgroup.events")
	}
}

func TestHierarchyDir(t *testing.T) {
	tests := []struct {
		h          Hierarchy
		path, want string
	}{
		{Hierarchy{Mount: "/sys/fs/cgroup", Root: "/"}, "/user.slice/tether-x", "/sys/fs/cgroup/user.slice/tether-x"},
		{Hierarchy{Mount: "/sys/fs/cgroup/unified", Root: "/"}, "/", "/sys/fs/cgroup/unified"},
		// A container's view: its own group is mounted as the root.
		{Hierarchy{Mount: "/sys/fs/cgroup", Root: "/docker/abc"}, "/docker/abc/tether-x", "/sys/fs/cgroup/tether-x"},
		{Hierarchy{Mount: "/sys/fs/cgroup", Root: "/docker/abc"}, "/docker/abcd", ""},
		{Hierarchy{Mount: "/sys/fs/cgroup", Root: "/docker/abc"}, "/other", ""},
	}
	for _, tt := range tests {
		if got := tt.h.Dir(tt.path); got != tt.want {
			t.Errorf("%+v.Dir(%q) = %q, want %q", tt.h, tt.path, got, tt.want)
		}
	}
}
