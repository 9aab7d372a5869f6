//go:build linux || darwin

package spawn

import (
	"context"
	"os"
	"os/exec"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tetherproc/tether/internal/hangup"
	"github.com/tetherproc/tether/internal/kill"
	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/trace"
)

// stopSignal reports whether sig stops a process by default: the job
// control signals a terminal or kill(1) sends.
func stopSignal(sig syscall.Signal) bool {
	return sig == unix.SIGTSTP || sig == unix.SIGTTIN || sig == unix.SIGTTOU
}

// lateSignals registers the signals the command need not wait for, one
// at a time, so that the end of the run waits on one registration at
// most (each costs a round trip to the runtime's signal thread: a
// command that is over first, a make recipe's true, pays for none of
// the rest); mu orders each registration before the end of all
// registration (stopped).
type lateSignals struct {
	mu      sync.Mutex
	stopped bool
	timer   *time.Timer
	// soonDone is closed once the signals caught as the command starts
	// are (registerSoon); nil where there are none to catch.
	soonDone chan struct{}
}

// registerSoon registers sigs on c at once, one at a time, unless
// stopped first, then says so to waitSoon.
func (l *lateSignals) registerSoon(c chan<- os.Signal, sigs []os.Signal) {
	defer close(l.soonDone)
	l.register(c, sigs)
}

// waitSoon waits until the signals caught as the command starts are
// registered, or their registration stopped. tether stopping itself with
// its command waits for them first: the CONT that continues it (fg) is
// one of them, and one that came before it was caught would be dropped,
// leaving the command stopped for good.
func (l *lateSignals) waitSoon() {
	if l.soonDone != nil {
		<-l.soonDone
	}
}

// catch registers sigs on c 10 ms from now, unless stopped first: the
// rarely sent signals, once the command has run for a moment.
func (l *lateSignals) catch(c chan<- os.Signal, sigs []os.Signal) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.timer = time.AfterFunc(10*time.Millisecond, func() {
		if l.register(c, sigs) {
			trace.Printf("the rarely sent signals are caught too")
		}
	})
}

// register registers sigs on c in turn until stopped, and reports
// whether it registered them all. Once SIGCHLD is registered, one is put
// on c: a child that exited before it was caught is then reaped at once.
func (l *lateSignals) register(c chan<- os.Signal, sigs []os.Signal) bool {
	for _, sig := range sigs {
		l.mu.Lock()
		stopped := l.stopped
		if !stopped {
			signal.Notify(c, sig)
		}
		l.mu.Unlock()
		if stopped {
			return false
		}
		if sig == syscall.SIGCHLD {
			select {
			case c <- sig:
			default: // full: the loop reaps as it drains it
			}
		}
	}
	return true
}

// stop ends the registration: no signal is registered after it returns.
func (l *lateSignals) stop() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.stopped = true
	if l.timer != nil {
		l.timer.Stop()
	}
}

// forward passes sig to the command's process group. The group id is the
// command's PID, which cannot be recycled while the command is unreaped.
func (r *supervisor) forward(sig syscall.Signal) {
	if r.term.shared {
		r.forwardShared(sig)
		return
	}
	if err := unix.Kill(-r.child, sig); err != nil {
		trace.Printf("forward %s to group %d: %v; to %d alone", unix.SignalName(sig), r.child, err, r.child)
		_ = unix.Kill(r.child, sig)
		return
	}
	trace.Printf("forwarded %s to group %d", unix.SignalName(sig), r.child)
	if g := r.init.CommandGroup(r.child); g != 0 {
		// The command left the init's group (setpgid, setsid): the
		// group's signal missed it.
		r.init.Signal(sig)
		trace.Printf("forwarded %s to the command, in group %d", unix.SignalName(sig), g)
	}
}

// forwardTree passes sig to every process group of the tree: a daemon
// is in a session, and a group, of its own. A member in tether's own
// group (the caller's, at a terminal) is signalled alone.
func (r *supervisor) forwardTree(sig syscall.Signal) {
	fs := proc.Host()
	own := unix.Getpgrp()
	done := map[int]bool{}
	for _, m := range r.tree() {
		st, err := fs.Stat(m.PID)
		if err != nil || st.StartTime != m.StartTime {
			continue
		}
		if st.PGID == own || st.PGID <= 1 {
			_ = kill.SignalIn(fs, m, sig)
			continue
		}
		if !done[st.PGID] {
			done[st.PGID] = true
			_ = unix.Kill(-st.PGID, sig)
			trace.Printf("forwarded %s to group %d", unix.SignalName(sig), st.PGID)
		}
	}
}

// The ends from outside the signals come in as TERMs too: a context's
// end, and a stdio client's hang-up (package hangup says why).

// watchEnds starts the watches of the ends that come from outside the
// signals, each a TERM into the run's signals, handled there as one sent
// to the program: ctx's end, and with Options.EndOnHangup, the client's
// hang-up. cancelled reports whether ctx's end came; stop ends the watch
// of ctx (the hang-up's ends in finish, with the run's other watches).
func (r *supervisor) watchEnds(ctx context.Context, cmd *exec.Cmd) (cancelled func() bool, stop func()) {
	if r.cfg.EndOnHangup {
		r.stopHangup = r.watchHangup(cmd)
	}
	var done atomic.Bool
	stopCtx := context.AfterFunc(ctx, func() {
		done.Store(true)
		r.sendTerm()
	})
	return done.Load, func() { stopCtx() }
}

// sendTerm hands the loop a TERM from outside the signals.
func (r *supervisor) sendTerm() {
	select {
	case r.sigs <- syscall.SIGTERM:
	default: // 64 signals waiting: a TERM among them is on its way
	}
}

// watchHangup starts the watch of Options.EndOnHangup: once cmd's
// standard input has no writer and its standard output no reader left,
// a TERM comes to the run's signals, as the caller's death does, and
// the run ends as at any other TERM. Where either is not an *os.File
// that is a pipe or a socket there is nothing to watch, and the trace
// says so. stop, never nil, ends the watch.
func (r *supervisor) watchHangup(cmd *exec.Cmd) (stop func()) {
	in, _ := cmd.Stdin.(*os.File)
	out, _ := cmd.Stdout.(*os.File)
	fds := []int{-1, -1}
	closeAll := func() {
		for _, fd := range fds {
			if fd >= 0 {
				unix.Close(fd)
			}
		}
	}
	for i, s := range []struct {
		name string
		f    *os.File
	}{{"input", in}, {"output", out}} {
		fd, err := hangup.Dup(s.f)
		if err != nil {
			trace.Printf("end on hang-up: the standard %s (%T) gives no descriptor to watch: %v: not watched", s.name, s.f, err)
			closeAll()
			return func() {}
		}
		fds[i] = fd
		if kind, ok := hangup.CanHangUp(fd); !ok {
			trace.Printf("end on hang-up: the standard %s is %s: not watched", s.name, kind)
			closeAll()
			return func() {}
		}
	}
	stop, err := hangup.Watch(fds[0], fds[1], func() {
		trace.Printf("the client hung up (no writer of the standard input, no reader of the output): TERM")
		r.sendTerm()
	})
	if err != nil {
		trace.Printf("end on hang-up: not watched: %v", err)
		return func() {}
	}
	trace.Printf("end on hang-up: watching the standard input and output")
	return stop
}
