//go:build linux || darwin

package spawn

import (
	"os"
	"os/signal"
	"slices"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tetherproc/tether/internal/kill"
	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/trace"
)

// inherited is what tether's caller left it: the signals it ignores and
// those it blocks. A signal ignored when tether starts stays ignored in
// the command and is not forwarded (nohup); one blocked stays blocked.
// Go's runtime replaces an inherited SIG_IGN with its own handler before
// any of tether's code runs for every signal but HUP, INT and the job
// control signals (CONT, TSTP, TTIN, TTOU), and unblocks the ones it must
// handle; what the runtime left is what tether can honour.
type inherited struct{ ignored, blocked, caught uint64 }

// runtimeKeeps are the signals whose handler Go's runtime leaves in
// place once it has caught one for a channel and the channel is stopped
// (signal.Stop, signal.Reset): it has none of its own for them at
// start-up, and after, it drops them. A program that had a stop signal
// caught once would never stop on Ctrl-Z again. In a host program
// Supervise catches them only if the program does already.
var runtimeKeeps = []syscall.Signal{unix.SIGCONT, unix.SIGTSTP, unix.SIGTTIN, unix.SIGTTOU}

// leaveUncaught drops from sigs those of runtimeKeeps the process does
// not catch already.
func (in inherited) leaveUncaught(sigs []os.Signal) []os.Signal {
	return slices.DeleteFunc(sigs, func(s os.Signal) bool {
		sig := s.(syscall.Signal)
		return slices.Contains(runtimeKeeps, sig) && in.caught&bit(sig) == 0
	})
}

func bit(sig syscall.Signal) uint64 { return 1 << (uint(sig) - 1) }

// toForward are the signals Supervise catches to pass on to the command's
// group: every one it can, as dumb-init does, but those its caller left
// ignored or blocked. first are caught before the command starts, soon
// as it starts, rare once it has run for a moment.
func (in inherited) toForward() (first, soon, rare []os.Signal) {
	for s := syscall.Signal(1); s <= maxSignal; s++ {
		switch {
		case notForwarded[s] || (in.ignored|in.blocked)&bit(s) != 0:
		case firstSignals[s]:
			first = append(first, s)
		case commonSignals[s]:
			soon = append(soon, s)
		default:
			rare = append(rare, s)
		}
	}
	return first, soon, rare
}

// firstSignals are caught before the command starts: those that end a
// job (a shell's kill, make's, a process manager's stop, a terminal
// closed), which uncaught would end tether without its cleanup. Each
// signal registered costs a round trip to Go's runtime's signal thread
// (some 35 µs, slower on two busy cores), and the command waits for
// these three only. The other common signals are caught as it starts:
// one sent to tether in that millisecond is what it is to any Go
// program, dropped (USR1, WINCH) or the end of tether as of a crash
// (QUIT, ABRT), whose watchdog then ends the tree.
var firstSignals = map[syscall.Signal]bool{syscall.SIGHUP: true, syscall.SIGINT: true, syscall.SIGTERM: true}

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
