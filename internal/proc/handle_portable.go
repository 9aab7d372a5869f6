//go:build unix && (!linux || tetherportable)

package proc

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Handle holds one process by its PID and the start time it had when
// opened. There is no pidfd here: each signal is sent with kill(2) right
// after the start time is read again, which narrows the window in which a
// recycled PID could be hit to the time between the two calls.
type Handle struct {
	fs        FS
	pid       int
	startTime uint64
}

// Open opens a handle on pid; ErrGone when no process has it.
func (fs FS) Open(pid int) (*Handle, error) {
	p, err := fs.Process(pid)
	if err != nil {
		return nil, err
	}
	return &Handle{fs: fs, pid: pid, startTime: p.StartTime}, nil
}

// Close releases the handle.
func (h *Handle) Close() {}

// Identity has nothing finer than the start time to offer here: 0.
func (h *Handle) Identity() uint64 { return 0 }

// Identity has nothing finer than the start time to offer here: 0.
func (fs FS) Identity(pid int) uint64 { return 0 }

// gone reports the process exited: no such process, another in its
// place, or a zombie whose threads have all exited (a thread group whose
// leader has exited first still holds its files, its sockets among them).
func (h *Handle) gone() bool {
	p, err := h.fs.Process(h.pid)
	return err != nil || p.StartTime != h.startTime || p.Zombie && h.fs.othersAlive(h.pid) == 0
}

// Signal sends sig to the process if it still holds its PID; ErrGone
// once it has exited.
func (h *Handle) Signal(sig syscall.Signal) error {
	if h.gone() {
		return &readError{what: fmt.Sprintf("signal %d", h.pid), kind: ErrGone, err: unix.ESRCH}
	}
	if err := unix.Kill(h.pid, sig); err != nil {
		return fmt.Errorf("signal %s to %d: %w", SignalName(sig), h.pid, err)
	}
	return nil
}

// Exited polls until at least one of hs has exited or the deadline
// passes, and reports which have exited.
func Exited(hs []*Handle, deadline time.Time) []bool {
	done := make([]bool, len(hs))
	for {
		any := false
		for i, h := range hs {
			done[i] = h.gone()
			any = any || done[i]
		}
		if any || len(hs) == 0 || !time.Now().Before(deadline) {
			return done
		}
		time.Sleep(min(10*time.Millisecond, time.Until(deadline)))
	}
}

// othersAlive counts the threads of pid other than its leader still
// running: a process whose leader shows as a zombie has not exited until
// they have too. Linux (the portable path) lists them in /proc/PID/task;
// macOS reports a process a zombie only once all its threads have
// exited, and elsewhere nothing is known of threads: 0.
func (fs FS) othersAlive(pid int) int {
	if runtime.GOOS != "linux" {
		return 0
	}
	tasks, err := os.ReadDir(fs.root + "/" + strconv.Itoa(pid) + "/task")
	if err != nil {
		return 0
	}
	return max(0, len(tasks)-1)
}
