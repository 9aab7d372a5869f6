//go:build linux && !tetherportable

package pidfd

import (
	"fmt"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/signame"
)

// Handle holds one process through a pidfd: a signal sent through it
// reaches the process it was opened on or nothing, never a later holder
// of the PID. Open it before checking who the process is, so that the
// check and the signal are about the same process. Where this kernel has
// no pidfds (Pidfds), it holds the process by its PID and start time
// instead, as on macOS (fd is -1: handle_start.go).
type Handle struct {
	pid   int
	fd    int
	start startHandle
}

// Open opens a handle on pid; proc.ErrGone when no process has it.
func Open(fs proc.FS, pid int) (*Handle, error) {
	if ok, _ := Pidfds(); !ok {
		h, err := openByStart(fs, pid)
		if err != nil {
			return nil, err
		}
		return &Handle{pid: pid, fd: -1, start: h}, nil
	}
	fd, err := unix.PidfdOpen(pid, 0)
	if err == unix.ESRCH {
		return nil, &classified{what: fmt.Sprintf("pidfd_open %d", pid), kind: proc.ErrGone, err: err}
	}
	if err != nil {
		return nil, &classified{what: fmt.Sprintf("pidfd_open %d", pid), kind: proc.ErrUnverifiable, err: err}
	}
	return &Handle{pid: pid, fd: fd}, nil
}

// Close releases the handle.
func (h *Handle) Close() {
	if h.fd >= 0 {
		unix.Close(h.fd)
	}
}

// Holds reports whether h still holds a live process whose start time is
// start, read after h was opened. Through a pidfd that is whether it has
// not exited: alive now, it held its PID all along, so what was read was
// its. Without one, its start time is read again.
func (h *Handle) Holds(start uint64) bool {
	if h.fd < 0 {
		return h.start.startTime == start && !h.start.gone()
	}
	return !h.Done()
}

// Signal sends sig to the process; proc.ErrGone once it has exited.
func (h *Handle) Signal(sig syscall.Signal) error {
	if h.fd < 0 {
		return h.start.signal(sig)
	}
	err := unix.PidfdSendSignal(h.fd, sig, nil, 0)
	if err == unix.ESRCH {
		return &classified{what: fmt.Sprintf("signal %d", h.pid), kind: proc.ErrGone, err: err}
	}
	if err != nil {
		return fmt.Errorf("signal %s to %d: %w", signame.Name(sig), h.pid, err)
	}
	return nil
}

// Exited waits until at least one of hs has exited or the deadline
// passes, and reports which have exited. It waits on every handle from
// the calling thread alone, so that ending a thousand processes needs no
// more threads than ending one: under a per-user process limit, a thread
// per wait is a crash.
func Exited(hs []*Handle, deadline time.Time) []bool {
	if ok, _ := Pidfds(); !ok {
		return pollExited(len(hs), func(i int) bool { return hs[i].start.gone() }, deadline)
	}
	fds := make([]unix.PollFd, len(hs))
	for i, h := range hs {
		fds[i] = unix.PollFd{Fd: int32(h.fd), Events: unix.POLLIN}
	}
	done := make([]bool, len(hs))
	if len(hs) == 0 {
		return done
	}
	for {
		ms := max(0, int(time.Until(deadline)/time.Millisecond))
		_, err := unix.Poll(fds, ms)
		if err == unix.EINTR {
			continue
		}
		for i := range fds {
			done[i] = err == nil && fds[i].Revents != 0
		}
		return done
	}
}

// OpenChild opens a handle on pid, a child of the caller that it has
// not reaped (right after its fork): the PID is the child's by
// construction, so nothing is read to check it. ok is false where this
// kernel has no pidfds; the caller then reads /proc as it would without
// a handle.
func OpenChild(pid int) (h *Handle, ok bool) {
	if ok, _ := Pidfds(); !ok {
		return nil, false
	}
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return nil, false
	}
	return &Handle{pid: pid, fd: fd}, true
}

// Reaped reports whether the caller's child that h holds (see OpenChild)
// has been reaped, its PID no longer its own: one waitid(P_PIDFD,
// WNOWAIT), which leaves a zombie for its own waiter. ok is false where
// that cannot be asked (no pidfd, Linux before 5.4).
func (h *Handle) Reaped() (reaped, ok bool) {
	if h.fd < 0 {
		return false, false
	}
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PIDFD, h.fd, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil)
		switch err {
		case nil:
			return false, true
		case unix.ECHILD:
			return true, true
		case unix.EINTR:
			continue
		}
		return false, false
	}
}

// Done reports, without waiting, whether every thread of the process has
// exited: it is a zombie with nothing of it left running, or reaped. A
// process that is done has no children (they were handed on as it
// exited). false where that cannot be told.
func (h *Handle) Done() bool {
	if h.fd < 0 {
		return false
	}
	fds := []unix.PollFd{{Fd: int32(h.fd), Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(fds, 0)
		if err == unix.EINTR {
			continue
		}
		return err == nil && n == 1 && fds[0].Revents&unix.POLLIN != 0
	}
}

// ByPidfd reports whether a Handle here is a pidfd: false where this
// kernel or sandbox has none, and a Handle is the PID and start time.
func ByPidfd() bool {
	ok, _ := Pidfds()
	return ok
}
