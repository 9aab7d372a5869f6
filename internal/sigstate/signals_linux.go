package sigstate

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/trace"
)

// notForwarded are the signals Supervise never passes on: those that
// cannot be caught, SIGCHLD (which it reaps on), the Go runtime's own
// (SIGURG for preemption, SIGPROF for profiling), and the two real-time
// signals the C library and the runtime reserve.
var notForwarded = map[syscall.Signal]bool{
	// SIGPIPE too: tether's own writes (its trace, the watchdog's pipe)
	// raise it, and it must not end the command.
	unix.SIGKILL: true, unix.SIGSTOP: true, unix.SIGCHLD: true, unix.SIGPIPE: true,
	unix.SIGURG: true, unix.SIGPROF: true, 32: true, 33: true, sigReserved: true,
}

// sigReserved is SIGRTMIN as the C library numbers it, which Go reserves
// (musl's SIGSYNCCALL) and cannot catch: left to its default, it would
// end tether. Once the command has started (which must not inherit the
// change), tether ignores it; it is not forwarded.
const sigReserved = syscall.Signal(34)

// IgnoreReserved has tether ignore the reserved signal (sigReserved);
// restore puts back the action it replaced once the last of the runs
// side by side in the process ends: a library caller's process keeps
// its own.
func IgnoreReserved() (restore func()) {
	reservedMu.Lock()
	defer reservedMu.Unlock()
	if reservedRuns == 0 {
		// struct sigaction with the handler SIG_IGN (1), no flags, no mask.
		ign := [4]uint64{1}
		_, _, errno := unix.RawSyscall6(unix.SYS_RT_SIGACTION, uintptr(sigReserved), uintptr(unsafe.Pointer(&ign)), uintptr(unsafe.Pointer(&reservedWas)), 8, 0, 0)
		if errno != 0 {
			return func() {}
		}
	}
	reservedRuns++
	return sync.OnceFunc(func() {
		reservedMu.Lock()
		defer reservedMu.Unlock()
		if reservedRuns--; reservedRuns == 0 {
			_, _, _ = unix.RawSyscall6(unix.SYS_RT_SIGACTION, uintptr(sigReserved), uintptr(unsafe.Pointer(&reservedWas)), 0, 8, 0, 0)
		}
	})
}

// reservedRuns counts the runs that ignore the reserved signal;
// reservedWas is its action before the first.
var (
	reservedMu   sync.Mutex
	reservedRuns int
	reservedWas  [4]uint64
)

// ReadInherited reads what tether's caller left it from its status file
// (SigIgn, SigBlk, SigCgt). The same read checks that /proc numbers processes
// as kill and wait do (proc.FS.CheckOwn): the tree is walked and
// signalled by the PIDs /proc shows.
func ReadInherited() (Inherited, error) {
	var in Inherited
	// SigBlk is the reading thread's own (SigIgn and SigCgt are the
	// process's): the locked thread's, which forks the command, not
	// the first thread's, which may be Go's signal thread, blocking
	// every signal it does not deliver.
	// thread-self is resolved in /proc's own PID namespace, as self is
	// (a TID of this namespace would name another task where /proc is
	// an enclosing namespace's, and the check below would be skipped).
	// Before Linux 3.17 there is only self.
	data, err := proc.ReadShown("/proc/thread-self/status")
	if errors.Is(err, fs.ErrNotExist) {
		data, err = proc.ReadShown("/proc/self/status")
	}
	if err != nil {
		return in, nil
	}
	if err := proc.Host().CheckOwnStatus(data); err != nil {
		return in, err
	}
	for _, line := range bytes.Split(data, []byte{'\n'}) {
		key, val, ok := bytes.Cut(line, []byte{':'})
		if !ok {
			continue
		}
		v, err := strconv.ParseUint(string(bytes.TrimSpace(val)), 16, 64)
		switch {
		case err != nil:
		case string(key) == "SigIgn":
			in.Ignored = v
		case string(key) == "SigBlk":
			in.Blocked = v
		case string(key) == "SigCgt":
			in.Caught = v
		}
	}
	for _, sig := range []syscall.Signal{unix.SIGHUP, unix.SIGINT} {
		if signal.Ignored(sig) {
			in.Ignored |= bit(sig)
		}
	}
	return in, nil
}

// maxSignal is the highest signal number.
const maxSignal = 64

// sigStatus is the terminal's status request (Ctrl-T), which Linux does
// not have.
const sigStatus = syscall.Signal(0)

// commonSignals are caught before the command starts: those a terminal,
// a shell or a process manager sends a job, and those that, uncaught,
// would end tether (the synchronous ones, sent with kill). The rest,
// which Go's runtime drops while uncaught, are caught a moment later.
var commonSignals = map[syscall.Signal]bool{
	unix.SIGHUP: true, unix.SIGINT: true, unix.SIGQUIT: true, unix.SIGTERM: true,
	unix.SIGUSR1: true, unix.SIGUSR2: true, unix.SIGWINCH: true, unix.SIGALRM: true,
	unix.SIGCONT: true, unix.SIGTSTP: true, unix.SIGTTIN: true, unix.SIGTTOU: true,
	unix.SIGSYS: true, unix.SIGTRAP: true, unix.SIGILL: true, unix.SIGABRT: true,
	unix.SIGBUS: true, unix.SIGFPE: true, unix.SIGSEGV: true, unix.SIGSTKFLT: true,
}

// DieBy ends the calling process by sig, as the command it ran died: the
// caller (a shell loop, make) then sees it killed by sig, not an exit
// status, and stops too on Ctrl-C. As coreutils timeout does: no core
// dump, the default disposition, the signal unblocked, raised at this
// thread. It returns only if sig does not end a process by default.
func DieBy(sig syscall.Signal) {
	trace.Printf("ending by %s, as the command did", unix.SignalName(sig))
	runtime.LockOSThread()
	signal.Reset(sig)
	_ = unix.Setrlimit(unix.RLIMIT_CORE, &unix.Rlimit{})
	// struct sigaction all zero: SIG_DFL, no flags, an empty mask.
	var dfl [4]uint64
	_, _, _ = unix.RawSyscall6(unix.SYS_RT_SIGACTION, uintptr(sig), uintptr(unsafe.Pointer(&dfl)), 0, 8, 0, 0)
	var set unix.Sigset_t
	addSignal(&set, sig)
	_ = unix.PthreadSigmask(unix.SIG_UNBLOCK, &set, nil)
	_ = unix.Tgkill(os.Getpid(), unix.Gettid(), sig)
}

// addSignal adds sig to set, whatever the width of its words.
func addSignal(set *unix.Sigset_t, sig syscall.Signal) {
	bits := uint(unsafe.Sizeof(set.Val[0]) * 8)
	n := uint(sig) - 1
	set.Val[n/bits] |= 1 << (n % bits)
}

// SetForeground gives the terminal fd to group pgid with SIGTTOU blocked on
// this thread, as shells do: caught, it would have the call restarted
// again and again from the background.
func SetForeground(fd, pgid int) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var set, old unix.Sigset_t
	addSignal(&set, unix.SIGTTOU)
	_ = unix.PthreadSigmask(unix.SIG_BLOCK, &set, &old)
	_ = unix.IoctlSetPointerInt(fd, unix.TIOCSPGRP, pgid)
	_ = unix.PthreadSigmask(unix.SIG_SETMASK, &old, nil)
}

// StopSignal is the signal that stopped a child, from its wait status.
func StopSignal(ws unix.WaitStatus) (syscall.Signal, bool) {
	return ws.StopSignal(), ws.Stopped()
}

// Continued reports a wait status of a child continued by SIGCONT.
func Continued(ws unix.WaitStatus) bool { return ws.Continued() }
