package reclaim

import (
	"fmt"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// killWait bounds the wait for a process to go after SIGKILL: only a
// process stuck in the kernel (D state) takes longer.
const killWait = 10 * time.Second

// terminate signals r's process through a pidfd opened before its
// identity is checked again, so that a PID recycled since Find is never
// signalled: the new process fails the check, and a signal through the
// old pidfd cannot reach it.
func terminate(r *Result, opts Options, act Action) {
	fd, err := unix.PidfdOpen(r.PID, 0)
	if err == unix.ESRCH {
		r.Outcome = AlreadyGone
		return
	}
	if err != nil {
		r.Outcome, r.Why = Failed, fmt.Sprintf("pidfd_open %d: %v", r.PID, err)
		return
	}
	defer unix.Close(fd)
	if id := pidfdIdentity(fd); r.identity != 0 && id != r.identity {
		r.Outcome, r.Why = Changed, fmt.Sprintf("PID %d now belongs to another process (pidfs inode %d, was %d)", r.PID, id, r.identity)
		return
	}
	if outcome, why := recheck(r.Process, opts); outcome != "" {
		r.Outcome, r.Why = outcome, why
		return
	}
	for _, sig := range []syscall.Signal{act.Signal, unix.SIGKILL} {
		if err := unix.PidfdSendSignal(fd, sig, nil, 0); err != nil {
			if err == unix.ESRCH {
				r.Outcome = Exited
				return
			}
			r.Outcome, r.Why = Failed, fmt.Sprintf("signal %s: %v", signalName(sig), err)
			return
		}
		r.Signals = append(r.Signals, signalName(sig))
		wait := act.Grace
		if sig == unix.SIGKILL {
			wait = killWait
		}
		if exited(fd, wait) {
			r.Outcome = Exited
			return
		}
		if sig == unix.SIGKILL {
			break
		}
	}
	r.Outcome, r.Why = Survived, fmt.Sprintf("still alive %v after SIGKILL", killWait)
}

// exited waits up to d for the process behind the pidfd to exit: the
// pidfd becomes readable then, whether or not it is our child.
func exited(fd int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for {
		ms := int(time.Until(deadline) / time.Millisecond)
		if ms < 0 {
			ms = 0
		}
		n, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, ms)
		if err == unix.EINTR {
			continue
		}
		return err == nil && n > 0
	}
}

func signalName(s syscall.Signal) string {
	return strings.TrimPrefix(unix.SignalName(s), "SIG")
}
