package spawn

import (
	"os"
	"os/signal"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tetherproc/tether/internal/trace"
)

// notForwarded are the signals Supervise never passes on: those that
// cannot be caught, SIGCHLD (which it reaps on), SIGPIPE (which tether's
// own writes raise) and the Go runtime's own (SIGURG, SIGPROF).
var notForwarded = map[syscall.Signal]bool{
	unix.SIGKILL: true, unix.SIGSTOP: true, unix.SIGCHLD: true, unix.SIGPIPE: true,
	unix.SIGURG: true, unix.SIGPROF: true,
}

// maxSignal is the highest signal number.
const maxSignal = 31

// sigStatus is the terminal's status request (Ctrl-T), which it sends to
// its whole foreground group.
const sigStatus = unix.SIGINFO

// ignoreReserved has nothing to do: macOS reserves no signal for its C
// library.
func ignoreReserved() (restore func()) { return func() {} }

// readInherited reads what tether's caller left it, as far as Go's
// runtime keeps it: the kernel's record of the process (kern.proc.pid)
// has its ignored and blocked signals.
func readInherited() (inherited, error) {
	var in inherited
	if k, err := unix.SysctlKinfoProc("kern.proc.pid", os.Getpid()); err == nil {
		in.ignored = uint64(uint32(k.Proc.P_sigignore))
		in.blocked = uint64(uint32(k.Proc.P_sigmask))
		in.caught = uint64(uint32(k.Proc.P_sigcatch))
	}
	for _, sig := range []syscall.Signal{unix.SIGHUP, unix.SIGINT} {
		if signal.Ignored(sig) {
			in.ignored |= bit(sig)
		}
	}
	return in, nil
}

// commonSignals are caught before the command starts; the rest a moment
// later.
var commonSignals = map[syscall.Signal]bool{
	unix.SIGHUP: true, unix.SIGINT: true, unix.SIGQUIT: true, unix.SIGTERM: true,
	unix.SIGUSR1: true, unix.SIGUSR2: true, unix.SIGWINCH: true, unix.SIGALRM: true,
	unix.SIGCONT: true, unix.SIGTSTP: true, unix.SIGTTIN: true, unix.SIGTTOU: true,
	unix.SIGSYS: true, unix.SIGTRAP: true, unix.SIGILL: true, unix.SIGABRT: true,
	unix.SIGBUS: true, unix.SIGFPE: true, unix.SIGSEGV: true, unix.SIGINFO: true,
}

// dieBy ends the calling process by sig, as the command it ran died,
// for the signals that a terminal, a shell or a process manager ends a
// job with. Go's runtime, once Notify is undone, ends the process by
// these itself; for the rest it keeps a handler of its own (it would
// print a crash dump for QUIT, ABRT, SEGV and the like) or ignores them,
// and macOS gives tether no way around it without cgo: dieBy returns, and
// the caller exits 128+N.
func dieBy(sig syscall.Signal) {
	switch sig {
	case unix.SIGHUP, unix.SIGINT, unix.SIGTERM:
	default:
		return
	}
	trace.Printf("ending by %s, as the command did", unix.SignalName(sig))
	signal.Reset(sig)
	_ = unix.Kill(os.Getpid(), sig)
	time.Sleep(100 * time.Millisecond)
}

// setForeground gives the terminal to group pgid with SIGTTOU ignored
// for the moment, as shells do: caught, it would have the call restarted
// again and again from the background. (macOS has no per-thread signal
// mask in reach without cgo; the ignore is the process's, and brief.)
func (r *run) setForeground(pgid int) {
	signal.Ignore(unix.SIGTTOU)
	_ = unix.IoctlSetPointerInt(r.term.fd, unix.TIOCSPGRP, pgid)
	signal.Notify(r.sigs, unix.SIGTTOU)
}

// stopSignalOf is the signal that stopped a child, from its wait status
// as XNU writes it (waitbsd.go).
func stopSignalOf(ws unix.WaitStatus) (syscall.Signal, bool) { return bsdStopSignal(uint32(ws)) }

// continued reports a wait status of a child continued by SIGCONT.
func continued(ws unix.WaitStatus) bool { return bsdContinued(uint32(ws)) }
