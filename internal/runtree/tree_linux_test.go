package runtree_test

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tetherproc/tether/internal/cgroup"
	"github.com/tetherproc/tether/internal/kill"
	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/proctest"
	"github.com/tetherproc/tether/internal/ptree"
	"github.com/tetherproc/tether/internal/runtree"
	"github.com/tetherproc/tether/marker"
	"github.com/tetherproc/tether/procid"
)

// startRun starts script in a session of its own, with the test's
// marker and entry in its environment, and reads one PID per line from
// it until it has printed n. Every process it names is ended when the
// test ends, by start time, whatever the test did.
func startRun(t *testing.T, entry, script string, n int) (*exec.Cmd, []procid.ID) {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.Env = append(proctest.Env(t), "PATH="+os.Getenv("PATH"), entry)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	// A pipe of the test's own, not cmd.StdoutPipe: Wait, which runs
	// beside the reading, would close that one once the shell exits,
	// and the shell may exit before its PIDs are read.
	out, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { out.Close() })
	cmd.Stdout = w
	err = cmd.Start()
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	var ms []procid.ID
	t.Cleanup(func() {
		for _, m := range ms {
			_ = kill.Signal(m, syscall.SIGKILL)
		}
		_ = cmd.Process.Kill() // ours, unreaped until exited closes
		<-exited
	})
	sc := bufio.NewScanner(out)
	for len(ms) < n && sc.Scan() {
		pid, err := strconv.Atoi(strings.TrimSpace(sc.Text()))
		if err != nil {
			t.Fatalf("want a PID from the run, got %q", sc.Text())
		}
		st, err := proc.Host().Stat(pid)
		if err != nil {
			t.Fatalf("stat of %d the run printed: %v", pid, err)
		}
		ms = append(ms, procid.ID{PID: pid, StartTime: st.StartTime})
	}
	if len(ms) < n {
		t.Fatalf("the run printed %d PIDs, want %d", len(ms), n)
	}
	return cmd, ms
}

// execd waits until each of ms runs sleep: past its execve, so that
// what its environment says is settled.
func execd(t *testing.T, ms ...procid.ID) {
	t.Helper()
	for _, m := range ms {
		proctest.Eventually(t, "process "+strconv.Itoa(m.PID)+" to run sleep", func() bool {
			st, err := proc.Host().Stat(m.PID)
			return err == nil && st.Comm == "sleep"
		})
	}
}

// A run scattered three ways is one tree: a member found only below its
// root (its environment cleared), one found only by the run id (it left
// the subtree), one found only on the kept list (both), and the root.
// Each is listed once, also one that two sources list, and End ends them
// all.
func TestTreeFromItsSources(t *testing.T) {
	entry := "RUNTREE_TEST_RUN=" + marker.NewRunID()
	cmd, ms := startRun(t, entry, `
		env -i /bin/sleep 300 & echo $!
		( /bin/sleep 301 & echo $! )
		( env -i /bin/sleep 302 & echo $! )
		exec /bin/sleep 303`, 3)
	below, carrier, kept := ms[0], ms[1], ms[2]
	root := procid.ID{PID: cmd.Process.Pid}
	st, err := proc.Host().Stat(root.PID)
	if err != nil {
		t.Fatal(err)
	}
	root.StartTime = st.StartTime
	execd(t, below, carrier, kept, root)

	fs := proc.Host()
	tree := runtree.Tree{
		What: "test run",
		Sources: []runtree.Source{
			runtree.Below(fs, root.PID, func() int { return 0 }),
			runtree.Carriers(fs, []string{entry}, os.Getuid()),
			// below is on the list as well: it is still one member.
			runtree.Kept(fs, []procid.ID{kept, below}),
		},
	}
	want := []procid.ID{below, carrier, kept, root}
	var got []procid.ID
	proctest.Eventually(t, "the run's four members", func() bool {
		var unsettled bool
		got, unsettled = tree.Members()
		return !unsettled && len(got) >= len(want)
	})
	for _, m := range want {
		if n := count(got, m); n != 1 {
			t.Errorf("Members() = %v: %v listed %d times, want once", got, m, n)
		}
	}
	if !tree.End(context.Background(), 5*time.Second) {
		t.Fatal("End = false; want the run ended")
	}
	for _, m := range want {
		if ptree.Alive(proc.Host(), m) {
			t.Errorf("%v alive after End", m)
		}
	}
	if left, _ := tree.Members(); len(left) > 0 {
		t.Errorf("Members() after End = %v; want none", left)
	}
}

func count(ms []procid.ID, m procid.ID) int {
	n := 0
	for _, x := range ms {
		if x == m {
			n++
		}
	}
	return n
}

// The end of the caller's context ends the grace: a member that ignores
// TERM is killed then, not an hour later.
func TestTreeEndHurried(t *testing.T) {
	entry := "RUNTREE_TEST_RUN=" + marker.NewRunID()
	_, ms := startRun(t, entry, `trap '' TERM; ( /bin/sleep 300 & echo $! ); wait`, 1)
	execd(t, ms...)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	ended := runtree.Tree{What: "test run", Sources: []runtree.Source{runtree.Kept(proc.Host(), ms)}}.End(ctx, time.Hour)
	if took := time.Since(start); !ended || took > time.Minute {
		t.Fatalf("End with a context that ends in 300ms and an hour's grace = %v after %v; want true within a minute", ended, took)
	}
	if ptree.Alive(proc.Host(), ms[0]) {
		t.Errorf("%v, which ignores TERM, alive after End", ms[0])
	}
}

// A cgroup source ends its whole group as the grace ends, also where no
// member could be signalled one by one.
func TestTreeKillsItsCgroup(t *testing.T) {
	g, err := cgroup.New(marker.NewRunID(), nil)
	if err != nil {
		t.Skipf("no cgroup can be made here: %v", err)
	}
	t.Cleanup(g.Release)
	cmd := exec.Command("/bin/sh", "-c", `trap '' TERM; while :; do /bin/sleep 300 & wait; done`)
	cmd.Env = proctest.Env(t)
	cmd.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: g.FD(), Setsid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() { g.KillAll(); <-exited })
	tree := runtree.Tree{
		What:    "test cgroup",
		Sources: []runtree.Source{runtree.Cgroup(g)},
		Send:    func(procid.ID, syscall.Signal) error { return errors.New("refused") },
	}
	proctest.Eventually(t, "the shell and its sleep in the group", func() bool {
		ms, _ := tree.Members()
		return len(ms) >= 2 && slices.ContainsFunc(ms, func(m procid.ID) bool { return m.PID == cmd.Process.Pid })
	})
	if !tree.End(context.Background(), 100*time.Millisecond) {
		ms, _ := tree.Members()
		t.Fatalf("End = false with members %v; want the group killed whole", ms)
	}
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		t.Fatal("the shell still running 10s after End")
	}
}
