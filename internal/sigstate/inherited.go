//go:build linux || darwin

package sigstate

import (
	"os"
	"slices"
	"syscall"

	"golang.org/x/sys/unix"
)

// Inherited is what the caller left the process: the signals it ignores,
// those it blocks, and those caught. A signal ignored when tether starts
// stays ignored in the command and is not forwarded (nohup); one blocked
// stays blocked. Go's runtime replaces an inherited SIG_IGN with its own
// handler before any of tether's code runs for every signal but HUP, INT
// and the job control signals (CONT, TSTP, TTIN, TTOU), and unblocks the
// ones it must handle; what the runtime left is what tether can honour.
type Inherited struct{ Ignored, Blocked, Caught uint64 }

// runtimeKeeps are the signals whose handler Go's runtime leaves in
// place once it has caught one for a channel and the channel is stopped
// (signal.Stop, signal.Reset): it has none of its own for them at
// start-up, and after, it drops them. A program that had a stop signal
// caught once would never stop on Ctrl-Z again. In a host program
// Supervise catches them only if the program does already.
var runtimeKeeps = []syscall.Signal{unix.SIGCONT, unix.SIGTSTP, unix.SIGTTIN, unix.SIGTTOU}

// LeaveUncaught drops from sigs those of runtimeKeeps the process does
// not catch already.
func (in Inherited) LeaveUncaught(sigs []os.Signal) []os.Signal {
	return slices.DeleteFunc(sigs, func(s os.Signal) bool {
		sig := s.(syscall.Signal)
		return slices.Contains(runtimeKeeps, sig) && in.Caught&bit(sig) == 0
	})
}

func bit(sig syscall.Signal) uint64 { return 1 << (uint(sig) - 1) }

// ToForward are the signals a supervisor catches to pass on to its
// command's group: every one it can, as dumb-init does, but those its
// caller left ignored or blocked. first are caught before the command
// starts, soon as it starts, rare once it has run for a moment.
func (in Inherited) ToForward() (first, soon, rare []os.Signal) {
	for s := syscall.Signal(1); s <= maxSignal; s++ {
		switch {
		case notForwarded[s] || (in.Ignored|in.Blocked)&bit(s) != 0:
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

// FromTerminal reports whether a terminal sends sig to its whole
// foreground group: Ctrl-C, Ctrl-\, Ctrl-Z, a resize, a hang-up, and
// where there is one, the status request.
func FromTerminal(sig syscall.Signal) bool {
	switch sig {
	case unix.SIGINT, unix.SIGQUIT, unix.SIGTSTP, unix.SIGWINCH, unix.SIGHUP, unix.SIGTTIN, unix.SIGTTOU:
		return true
	}
	return sig == sigStatus
}
