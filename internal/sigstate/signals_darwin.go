package sigstate

import (
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"
	"unsafe"

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

// IgnoreReserved has nothing to do: macOS reserves no signal for its C
// library.
func IgnoreReserved() (restore func()) { return func() {} }

// ReadInherited reads what tether's caller left it, as far as Go's
// runtime keeps it: the kernel's record of the process (kern.proc.pid)
// has its ignored and caught signals; the blocked ones XNU keeps per
// thread (the record's p_sigmask is never filled in), so they are read
// from the calling thread, Supervise's locked one, whose mask the
// runtime set up from the one tether was started with.
func ReadInherited() (Inherited, error) {
	var in Inherited
	if k, err := unix.SysctlKinfoProc("kern.proc.pid", os.Getpid()); err == nil {
		in.Ignored = uint64(uint32(k.Proc.P_sigignore))
		in.Caught = uint64(uint32(k.Proc.P_sigcatch))
	}
	var blocked uint32
	if err := threadSigmask(sigBlock, nil, &blocked); err == nil {
		in.Blocked = uint64(blocked)
	} else {
		trace.Printf("blocked signals not read: pthread_sigmask: %v", err)
	}
	for _, sig := range []syscall.Signal{unix.SIGHUP, unix.SIGINT} {
		if signal.Ignored(sig) {
			in.Ignored |= bit(sig)
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

// DieBy ends the calling process by sig, as the command it ran died,
// for the signals that a terminal, a shell or a process manager ends a
// job with. Go's runtime, once Notify is undone, ends the process by
// these itself; for the rest it keeps a handler of its own (it would
// print a crash dump for QUIT, ABRT, SEGV and the like) or ignores them.
// Putting SIG_DFL back first, as Linux's DieBy does, is within reach
// (libSystem's sigaction, called as the runtime calls it, no cgo), but
// is not done here, where it cannot be tried: dieBy returns, and the
// caller exits 128+N.
func DieBy(sig syscall.Signal) {
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

// SetForeground gives the terminal fd to group pgid with SIGTTOU blocked on
// this thread, as shells do: caught, it would have the call restarted
// again and again from the background. XNU's terminal (ttioctl) checks
// the calling thread's mask, as Linux's does, and no disposition of the
// process changes: one its caller left ignored stays ignored, one caught
// stays caught. Should the mask not be set, the terminal is not handed
// over.
func SetForeground(fd, pgid int) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	set, old := uint32(bit(unix.SIGTTOU)), uint32(0)
	if err := threadSigmask(sigBlock, &set, &old); err != nil {
		trace.Printf("terminal not handed to group %d: block SIGTTOU: %v", pgid, err)
		return
	}
	_ = unix.IoctlSetPointerInt(fd, unix.TIOCSPGRP, pgid)
	_ = threadSigmask(sigSetmask, &old, nil)
}

// StopSignal is the signal that stopped a child, from its wait status
// as XNU writes it (waitbsd.go).
func StopSignal(ws unix.WaitStatus) (syscall.Signal, bool) { return bsdStopSignal(uint32(ws)) }

// Continued reports a wait status of a child continued by SIGCONT.
func Continued(ws unix.WaitStatus) bool { return bsdContinued(uint32(ws)) }

// A thread's signal mask on macOS, read and set through libSystem's
// pthread_sigmask, as Go's runtime calls it and as golang.org/x/sys/unix
// calls libc (which offers no wrapper of it on darwin): no cgo, and no
// system call made directly. XNU keeps the blocked signals per thread
// (kern.proc.pid's p_sigmask is never filled in), and the terminal's
// background check (ttioctl) looks at the calling thread's.

//go:cgo_import_dynamic libc_pthread_sigmask pthread_sigmask "/usr/lib/libSystem.B.dylib"

// libc_pthread_sigmask_trampoline_addr is set in the assembly files
// (sigmask_darwin_amd64.s, sigmask_darwin_arm64.s): a jump to the
// function, called with the C calling convention by the runtime.
var libc_pthread_sigmask_trampoline_addr uintptr

// syscall_syscall is syscall.syscall (in the runtime): fn called with
// three arguments through the runtime's libc call. The standard library
// makes it reachable by this name (go.dev/issue/67401).
//
//go:linkname syscall_syscall syscall.syscall
func syscall_syscall(fn, a1, a2, a3 uintptr) (r1, r2 uintptr, err syscall.Errno)

// How pthread_sigmask changes the mask, as <sys/signal.h> numbers them.
const (
	sigBlock   = 1
	sigSetmask = 3
)

// threadSigmask is pthread_sigmask(how, set, old) on the calling thread,
// which must be locked to its goroutine: set may be nil (the mask only
// read into old), and old too. It returns the error number, not -1.
func threadSigmask(how int, set, old *uint32) error {
	r, _, _ := syscall_syscall(libc_pthread_sigmask_trampoline_addr, uintptr(how), uintptr(unsafe.Pointer(set)), uintptr(unsafe.Pointer(old)))
	if e := int32(r); e != 0 {
		return syscall.Errno(e)
	}
	return nil
}
