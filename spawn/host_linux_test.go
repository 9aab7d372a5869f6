package spawn_test

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tetherproc/tether/internal/pidfd"
	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/proctest"
	"github.com/tetherproc/tether/internal/ptree"
	"github.com/tetherproc/tether/marker"
	"github.com/tetherproc/tether/procid"
	"github.com/tetherproc/tether/spawn"
)

func newHost(t *testing.T, watchdog bool) *spawn.Host {
	t.Helper()
	// The leak check is registered first, so that it runs after the
	// Close below.
	proctest.Env(t)
	newHost := spawn.NewHostWithoutWatchdog
	if watchdog {
		newHost = spawn.NewHost
	}
	h, err := newHost()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := h.Close(context.Background()); err != nil {
			t.Error(err)
		}
	})
	return h
}

func hostCommand(t *testing.T, script string) *exec.Cmd {
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.Env = append(os.Environ(), proctest.Env(t)...)
	return cmd
}

// alive reports whether m still runs (a zombie does not).
func alive(m procid.ID) bool {
	st, err := proc.Host().Stat(m.PID)
	return err == nil && st.StartTime == m.StartTime && !st.Zombie()
}

// The child is stamped with its own run id and name, and a supervisor
// that is this program; cmd stays the caller's to wait for.
func TestHostStartStamps(t *testing.T) {
	h := newHost(t, false)
	cmd := hostCommand(t, `echo "$TETHER_NAME $TETHER_RUN_ID $TETHER_SUPERVISOR"`)
	var out strings.Builder
	cmd.Stdout = &out
	c, err := h.Start(cmd, spawn.ChildOptions{Stamp: marker.Stamp{Name: "stamped"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(out.String())
	if len(f) != 3 || f[0] != "stamped" || f[1] != c.RunID() || !strings.HasPrefix(f[2], strconv.Itoa(os.Getpid())+":") {
		t.Errorf("child's stamp %q; want name stamped, run %s, this process as its supervisor", out.String(), c.RunID())
	}
	if c.Name() != "stamped" || c.Options().RunID != c.RunID() || c.Options().Signal != syscall.SIGTERM {
		t.Errorf("Name %q, Options() %+v", c.Name(), c.Options())
	}
}

// A child whose command exits and leaves nothing is over by itself: the
// Host lets go of it at its next tick.
func TestHostChildOverByItself(t *testing.T) {
	h := newHost(t, false)
	cmd := hostCommand(t, "exit 3")
	if _, err := h.Start(cmd, spawn.ChildOptions{}); err != nil {
		t.Fatal(err)
	}
	var ee *exec.ExitError
	if err := cmd.Wait(); !errors.As(err, &ee) || ee.ExitCode() != 3 {
		t.Fatalf("Wait: %v; want exit status 3", err)
	}
	proctest.Eventually(t, "the run over", func() bool { return len(h.Children()) == 0 })
}

// Stop ends what the child left behind once it exited on its own: a
// grandchild in a session of its own that cleared its environment of
// the run id is found by the list of the tree kept since.
func TestHostStopEndsWhatTheChildLeft(t *testing.T) {
	h := newHost(t, false)
	// The child lives through two ticks: its grandchild is listed.
	cmd := hostCommand(t, "setsid env -i sleep 60 >/dev/null & echo $!; sleep 0.6")
	var out strings.Builder
	cmd.Stdout = &out
	c, err := h.Start(cmd, spawn.ChildOptions{Stamp: marker.Stamp{Name: "leaver"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	gc, err := strconv.Atoi(strings.TrimSpace(out.String()))
	if err != nil {
		t.Fatalf("no grandchild: %q", out.String())
	}
	st, err := proc.Host().Stat(gc)
	if err != nil {
		t.Fatal(err)
	}
	left := procid.ID{PID: gc, StartTime: st.StartTime}
	time.Sleep(2 * 250 * time.Millisecond)
	if len(h.Children()) != 1 {
		t.Fatalf("the run was let go of while its grandchild %d runs", gc)
	}
	if err := c.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if alive(left) {
		t.Errorf("Stop returned with the child's grandchild %d running", gc)
	}
}

// A child born in a cgroup of its own: what leaves every other tie (a
// session of its own, no run id, a double fork) is still ended.
func TestHostContainCgroup(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root (a cgroup of its own)")
	}
	h := newHost(t, false)
	cmd := hostCommand(t, "(setsid env -i sleep 60 &); echo started; exec sleep 60")
	stdout, _ := cmd.StdoutPipe()
	c, err := h.Start(cmd, spawn.ChildOptions{Stamp: marker.Stamp{Name: "contained"}, Contain: spawn.ContainCgroup})
	if portable {
		var ce *spawn.ContainError
		if !errors.As(err, &ce) {
			t.Fatalf("Start with ContainCgroup on the portable path: %v, want a ContainError", err)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if line := proctest.ReadLine(t, stdout); line != "started" {
		t.Fatalf("child said %q", line)
	}
	var escapee procid.ID
	proctest.Eventually(t, "the escapee", func() bool {
		ms, _ := ptree.Scan(proc.Host(), []string{marker.RunIDVar + "=" + c.RunID()})
		for _, pid := range allPIDs() {
			if args, _ := proc.Host().Cmdline(pid); len(args) == 2 && args[0] == "sleep" && args[1] == "60" {
				st, err := proc.Host().Stat(pid)
				if err == nil && st.PPID == 1 || err == nil && st.Session == pid {
					// Another test's sleep may be running too: the
					// escapee is the one in the child's group.
					if !containsPID(ms, pid) && cgroupOf(pid) == cgroupOf(cmd.Process.Pid) {
						escapee = procid.ID{PID: pid, StartTime: st.StartTime}
						return true
					}
				}
			}
		}
		return false
	})
	if err := c.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if alive(escapee) {
		t.Errorf("Stop returned with the escapee %d running", escapee.PID)
	}
	var ee *exec.ExitError
	if err := cmd.Wait(); !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGTERM {
		t.Errorf("Wait: %v; want killed by TERM", err)
	}
}

func allPIDs() []int {
	pids, _ := proc.Host().PIDs()
	return pids
}

func containsPID(ms []procid.ID, pid int) bool {
	for _, m := range ms {
		if m.PID == pid {
			return true
		}
	}
	return false
}

func cgroupOf(pid int) string {
	data, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cgroup")
	return string(data)
}

// What a Host refuses: a command started already, a negative grace, a
// containment other than a cgroup, the process group's and
// cgroup's SysProcAttr fields, a run id in use, and every child once
// it is closed.
func TestHostRefuses(t *testing.T) {
	h := newHost(t, false)
	if _, err := h.Start(exec.Command("/bin/true"), spawn.ChildOptions{Contain: "jail"}); err == nil || !strings.Contains(err.Error(), `Contain "jail"`) {
		t.Errorf(`Contain "jail": %v; want it refused, named`, err)
	}
	if _, err := h.Start(exec.Command("/bin/true"), spawn.ChildOptions{Contain: spawn.ContainPIDNamespace}); err == nil || !strings.Contains(err.Error(), "no PID namespace") {
		t.Errorf("ContainPIDNamespace: %v; want it refused, saying why", err)
	}
	started := exec.Command("/bin/true")
	if err := started.Run(); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Start(started, spawn.ChildOptions{}); err == nil {
		t.Error("a command started already was not refused")
	}
	if _, err := h.Start(exec.Command("/bin/true"), spawn.ChildOptions{Grace: -time.Second}); err == nil || !strings.Contains(err.Error(), "-1s") {
		t.Errorf("a negative grace: %v; want it refused, named", err)
	}
	setsid := exec.Command("/bin/true")
	setsid.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if _, err := h.Start(setsid, spawn.ChildOptions{}); err == nil || !strings.Contains(err.Error(), "Setsid") {
		t.Errorf("SysProcAttr.Setsid: %v; want it refused, named", err)
	}
	first := hostCommand(t, "exec sleep 60")
	c, err := h.Start(first, spawn.ChildOptions{Stamp: marker.Stamp{Name: "first"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Start(hostCommand(t, "exec sleep 60"), c.Options()); err == nil || !strings.Contains(err.Error(), c.RunID()) {
		t.Errorf("a run id in use: %v; want it refused, named", err)
	}
	if err := h.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	_ = first.Wait()
	if _, err := h.Start(exec.Command("/bin/true"), spawn.ChildOptions{}); !errors.Is(err, spawn.ErrHostClosed) {
		t.Errorf("Start after Close: %v; want ErrHostClosed", err)
	}
}

// The host's watchdog, killed, is replaced: one watchdog for the whole
// program, never none.
func TestHostWatchdogReplaced(t *testing.T) {
	h := newHost(t, true)
	if _, err := h.Start(hostCommand(t, "exec sleep 60"), spawn.ChildOptions{}); err != nil {
		t.Fatal(err)
	}
	first := hostWatchdog(t)
	if len(first) != 1 {
		t.Fatalf("%d watchdogs; want 1", len(first))
	}
	h2, err := pidfd.Open(proc.Host(), first[0])
	if err != nil {
		t.Fatal(err)
	}
	defer h2.Close()
	if err := h2.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	proctest.Eventually(t, "a new watchdog", func() bool {
		w := hostWatchdog(t)
		return len(w) == 1 && w[0] != first[0]
	})
}

// hostWatchdog lists this process's children that are a host's watchdog.
func hostWatchdog(t *testing.T) []int {
	var out []int
	for _, pid := range ptree.Children(proc.Host(), os.Getpid()) {
		if args, _ := proc.Host().Cmdline(pid); len(args) == 3 && args[1] == "tether-watchdog" && args[2] == "host" {
			if st, err := proc.Host().Stat(pid); err == nil && !st.Zombie() {
				out = append(out, pid)
			}
		}
	}
	return out
}

// Each process of the tree gets one TERM: the group's, or its own, never
// both (a second TERM is "force quit" to many servers).
func TestHostStopSendsOneTERM(t *testing.T) {
	h := newHost(t, false)
	cmd := hostCommand(t, `trap 'echo term' TERM; echo ready; while :; do sleep 0.05; done`)
	out, _ := cmd.StdoutPipe()
	c, err := h.Start(cmd, spawn.ChildOptions{Grace: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if line := proctest.ReadLine(t, out); line != "ready" {
		t.Fatalf("child said %q", line)
	}
	if err := c.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	rest, _ := io.ReadAll(out)
	if n := strings.Count(string(rest), "term"); n != 1 {
		t.Errorf("the child's trap ran %d times; want once", n)
	}
	_ = cmd.Wait()
}

// A context that ends before a child that ignores TERM is gone ends the
// grace: Stop kills it and returns, well before its Grace of a minute.
func TestHostStopContext(t *testing.T) {
	h := newHost(t, false)
	cmd := hostCommand(t, `trap '' TERM; echo ready; while :; do sleep 0.05; done`)
	out, _ := cmd.StdoutPipe()
	c, err := h.Start(cmd, spawn.ChildOptions{Grace: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if line := proctest.ReadLine(t, out); line != "ready" {
		t.Fatalf("child said %q", line)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	if err := c.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("Stop took %v with a context of 100ms", took)
	}
	var ee *exec.ExitError
	if err := cmd.Wait(); !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Errorf("Wait: %v; want killed", err)
	}
}

// A child made by exec.CommandContext is stopped whole when its context
// ends: the grandchild that left its session and environment too, not
// the child alone as os/exec's own Cancel would; cmd.WaitDelay is the
// stop's deadline, past which every member gets KILL, whatever the
// child's Grace.
func TestHostCommandContext(t *testing.T) {
	h := newHost(t, false)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", "setsid env -i sleep 60 >/dev/null & echo $!; sleep 60")
	cmd.Env = append(os.Environ(), proctest.Env(t)...)
	out, _ := cmd.StdoutPipe()
	if _, err := h.Start(cmd, spawn.ChildOptions{Stamp: marker.Stamp{Name: "withctx"}, Grace: 5 * time.Second}); err != nil {
		t.Fatal(err)
	}
	gc, err := strconv.Atoi(proctest.ReadLine(t, out))
	if err != nil {
		t.Fatal(err)
	}
	st, err := proc.Host().Stat(gc)
	if err != nil {
		t.Fatal(err)
	}
	left := procid.ID{PID: gc, StartTime: st.StartTime}
	time.Sleep(2 * 250 * time.Millisecond) // listed by the Host's ticks
	cancel()
	if err := cmd.Wait(); err == nil {
		t.Error("Wait after the context's end: nil, want the command ended")
	}
	if alive(left) {
		t.Errorf("the context ended, and the child's grandchild %d runs on", gc)
	}

	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	cmd = exec.CommandContext(ctx, "/bin/sh", "-c", `trap '' TERM; echo ready; while :; do sleep 0.05; done`)
	cmd.Env = append(os.Environ(), proctest.Env(t)...)
	cmd.WaitDelay = 300 * time.Millisecond
	out, _ = cmd.StdoutPipe()
	if _, err := h.Start(cmd, spawn.ChildOptions{Stamp: marker.Stamp{Name: "stubborn"}, Grace: time.Minute}); err != nil {
		t.Fatal(err)
	}
	if line := proctest.ReadLine(t, out); line != "ready" {
		t.Fatalf("child said %q", line)
	}
	start := time.Now()
	cancel()
	var ee *exec.ExitError
	if err := cmd.Wait(); !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Errorf("Wait: %v; want killed", err)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("Wait took %v with a WaitDelay of 300ms and a Grace of a minute", took)
	}
}
