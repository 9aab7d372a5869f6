package runtree_test

import (
	"context"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/tetherproc/tether/internal/kill"
	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/proctest"
	"github.com/tetherproc/tether/internal/runtree"
	"github.com/tetherproc/tether/internal/signame"
	"github.com/tetherproc/tether/procid"
)

// End ends a tree that grows while it runs and holds a member that
// ignores TERM: TERM to each member once, KILL after the grace, and it
// reports the tree ended only when every member is gone.
func TestEndEndsAGrowingTree(t *testing.T) {
	start := func(script string) *exec.Cmd {
		cmd := exec.Command("/bin/sh", "-c", script)
		cmd.Env = proctest.Env(t)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd
	}
	cmds := []*exec.Cmd{start("exec sleep 60"), start("trap '' TERM; exec sleep 60")}
	// Each has become sleep, its TERM ignored where asked, before the
	// escalation starts.
	for _, c := range cmds {
		proctest.Eventually(t, "sh to exec sleep", func() bool {
			st, err := proc.Host().Stat(c.Process.Pid)
			return err == nil && st.Comm == "sleep"
		})
	}
	exited := make(chan int, 8)
	waitFor := func(cmd *exec.Cmd) {
		go func() { _ = cmd.Wait(); exited <- cmd.Process.Pid }()
	}
	for _, c := range cmds {
		waitFor(c)
	}
	fs := proc.Host()
	sent := map[int][]string{}
	live := func() []procid.ID {
		var ms []procid.ID
		for _, c := range cmds {
			if st, err := fs.Stat(c.Process.Pid); err == nil && !st.Zombie() {
				ms = append(ms, procid.ID{PID: c.Process.Pid, StartTime: st.StartTime})
			}
		}
		return ms
	}
	rounds := 0
	ended := runtree.Tree{
		Sources: []runtree.Source{runtree.SourceFunc(func() ([]procid.ID, bool) {
			if rounds++; rounds == 2 {
				// A member forked while the escalation runs.
				late := start("exec sleep 60")
				cmds = append(cmds, late)
				waitFor(late)
			}
			return live(), false
		})},
		Send: func(m procid.ID, sig syscall.Signal) error {
			sent[m.PID] = append(sent[m.PID], signame.Name(sig))
			return kill.SignalIn(fs, m, sig)
		},
		Wait: func(deadline time.Time) {
			select {
			case <-exited:
			case <-time.After(min(10*time.Millisecond, time.Until(deadline))):
			}
		},
		What: "test tree",
	}.End(context.Background(), 300*time.Millisecond)
	if !ended || len(live()) != 0 {
		t.Fatalf("End() = %v with %v alive; want every member gone", ended, live())
	}
	if got := sent[cmds[0].Process.Pid]; len(got) != 1 || got[0] != "TERM" {
		t.Errorf("the member that obeys TERM got %v; want [TERM]", got)
	}
	if got := sent[cmds[1].Process.Pid]; len(got) < 2 || got[0] != "TERM" || got[1] != "KILL" {
		t.Errorf("the member that ignores TERM got %v; want TERM, then KILL", got)
	}
	if got := sent[cmds[2].Process.Pid]; len(got) == 0 || got[0] != "TERM" {
		t.Errorf("the member forked meanwhile got %v; want TERM first", got)
	}
}
