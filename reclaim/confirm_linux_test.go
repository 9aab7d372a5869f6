package reclaim_test

import (
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/proctest"
	"github.com/tetherproc/tether/marker"
	"github.com/tetherproc/tether/reclaim"
)

// A process held since its check is confirmed before its signal by what
// selected it: a stranded process by the markers its environment
// carries. One that wrote its title over its environment meanwhile (perl's
// $0 clears the whole area) no longer carries them, and is left alone.
func TestHeldProcessWithoutMarkersIsNotSignalled(t *testing.T) {
	perl, err := exec.LookPath("perl")
	if err != nil {
		t.Skip("no perl: its $0 is what clears the environment here")
	}
	w := newWorld(t)
	cmd := exec.Command(perl, "-e", `$| = 1; print "$$\n"; <STDIN>; $0 = "srv"; print "renamed\n"; <STDIN>`)
	cmd.Env = append(append(proctest.CleanEnv(), proctest.Env(t)...),
		marker.Markers{}.Environ(nil, marker.Stamp{Name: "web", Supervisor: w.dead, RunID: w.runID})...)
	line, next := stepped(t, cmd)
	if got := line(); got != strconv.Itoa(cmd.Process.Pid) {
		t.Fatalf("perl said %q, want its PID %d", got, cmd.Process.Pid)
	}
	f := reclaim.Filter{RunID: w.runID}
	held, err := reclaim.FindHeld(f)
	if err != nil || len(held.Procs) != 1 || held.Procs[0].PID != cmd.Process.Pid {
		t.Fatalf("FindHeld: %v %+v; want perl %d", err, held, cmd.Process.Pid)
	}
	next()
	if got := line(); got != "renamed" {
		t.Fatalf("perl said %q, want renamed", got)
	}
	rs := held.Terminate(f, reclaim.Action{Grace: time.Second})
	if len(rs) != 1 || rs[0].Outcome != reclaim.Changed || rs[0].Cause.Kind != reclaim.MarkersGone || len(rs[0].Signals) != 0 {
		t.Fatalf("%+v; want it changed, its markers gone, no signal sent", rs)
	}
	stillAlive(t, cmd.Process.Pid)
}

// A stranded process held since its check, still carrying its markers,
// is ended through the handle that held it.
func TestHeldProcessIsEnded(t *testing.T) {
	w := newWorld(t)
	p := w.start(proctest.Wait, "web", true, proctest.Spec{})
	f := reclaim.Filter{RunID: w.runID}
	held, err := reclaim.FindHeld(f)
	if err != nil || len(held.Procs) != 1 {
		t.Fatalf("FindHeld: %v %+v", err, held)
	}
	rs := held.Terminate(f, reclaim.Action{Grace: time.Second})
	if len(rs) != 1 || rs[0].Outcome != reclaim.Gone || len(rs[0].Signals) != 1 {
		t.Fatalf("%+v; want it gone after one signal", rs)
	}
	if alive(p) {
		t.Fatal("still alive")
	}
}

// A snapshot holds at most so many processes: one checked past the
// bound is opened before its signal and checked whole then, and ends
// all the same.
func TestHeldBounded(t *testing.T) {
	reclaim.HoldAtMost(t, 1)
	w := newWorld(t)
	a := w.start(proctest.Wait, "web", true, proctest.Spec{})
	b := w.start(proctest.Wait, "web", true, proctest.Spec{})
	f := reclaim.Filter{RunID: w.runID}
	held, err := reclaim.FindHeld(f)
	if err != nil || len(held.Procs) != 2 {
		t.Fatalf("FindHeld: %v %+v", err, held)
	}
	if n := held.HeldCount(); n != 1 {
		t.Fatalf("%d held; want 1, the bound", n)
	}
	rs := held.Terminate(f, reclaim.Action{Grace: time.Second})
	if len(rs) != 2 || rs[0].Outcome != reclaim.Gone || rs[1].Outcome != reclaim.Gone {
		t.Fatalf("%+v; want both gone", rs)
	}
	if alive(a) || alive(b) {
		t.Fatal("one is still alive")
	}
}

// A port's holder held since its check is confirmed by its socket before
// its signal: one that closed the socket meanwhile (still running) is no
// holder any more, and is left alone.
func TestHeldHolderWithoutSocketIsNotSignalled(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3: it is the listener that closes its socket on a line")
	}
	cmd := exec.Command(py, "-c", `import socket, sys
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen()
print(s.getsockname()[1], flush=True)
sys.stdin.readline()
s.close()
print("closed", flush=True)
sys.stdin.readline()`)
	cmd.Env = proctest.CleanEnv()
	line, next := stepped(t, cmd)
	port, err := strconv.Atoi(line())
	if err != nil {
		t.Fatal(err)
	}
	f := reclaim.Filter{Ports: []uint16{uint16(port)}, Foreign: true}
	held, err := reclaim.FindHeld(f)
	if err != nil || len(held.Procs) != 1 || held.Procs[0].PID != cmd.Process.Pid {
		t.Fatalf("FindHeld: %v %+v; want python %d", err, held, cmd.Process.Pid)
	}
	next()
	if got := line(); got != "closed" {
		t.Fatalf("python said %q, want closed", got)
	}
	rs := held.Terminate(f, reclaim.Action{Grace: time.Second})
	if len(rs) != 1 || rs[0].Outcome != reclaim.Changed || rs[0].Cause.Kind != reclaim.SocketGone || len(rs[0].Signals) != 0 {
		t.Fatalf("%+v; want it changed, its socket gone, no signal sent", rs)
	}
	stillAlive(t, cmd.Process.Pid)
}

// stepped starts cmd, a program that prints lines and waits for one on
// its stdin between its steps: line reads the next it printed, next lets
// it take its next step. It is ended (its stdin closed) and waited for as
// the test ends.
func stepped(t *testing.T, cmd *exec.Cmd) (line func() string, next func()) {
	t.Helper()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = pw
	if err := cmd.Start(); err != nil {
		pr.Close()
		pw.Close()
		t.Fatal(err)
	}
	pw.Close()
	t.Cleanup(func() { stdin.Close(); _ = cmd.Wait(); pr.Close() })
	line = func() string { return proctest.ReadLine(t, pr) }
	next = func() {
		if _, err := stdin.Write([]byte("\n")); err != nil {
			t.Fatal(err)
		}
	}
	return line, next
}

// stillAlive fails the test when pid is gone: it was signalled.
func stillAlive(t *testing.T, pid int) {
	t.Helper()
	if q, err := proc.Host().Process(pid); err != nil || q.Zombie {
		t.Fatalf("%d is gone (%v): it was signalled", pid, err)
	}
}
