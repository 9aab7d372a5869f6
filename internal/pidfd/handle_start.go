//go:build unix

package pidfd

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/signame"
)

// Where there is no pidfd (macOS, the portable path, a Linux before 5.3
// or a sandbox that refuses the calls), a process is held by its PID and
// the start time it had when it was opened, and each signal is sent with
// kill(2) right after both are read again: the window in which a
// recycled PID could be hit narrows to the time between the two calls.

// startHandle is a process held by its PID and start time.
type startHandle struct {
	fs        proc.FS
	pid       int
	startTime uint64
}

// openByStart holds pid by its start time; proc.ErrGone when no process has it.
func openByStart(fs proc.FS, pid int) (startHandle, error) {
	p, err := fs.Process(pid)
	if err != nil {
		return startHandle{}, err
	}
	return startHandle{fs: fs, pid: pid, startTime: p.StartTime}, nil
}

// gone reports the process exited: no such process, another in its
// place, or a zombie whose threads have all exited (a thread group whose
// leader has exited first still holds its files, its sockets among them).
func (h startHandle) gone() bool {
	p, err := h.fs.Process(h.pid)
	return err != nil || p.StartTime != h.startTime || p.Zombie && othersAlive(h.fs, h.pid) == 0
}

// signal sends sig if the process still holds its PID; proc.ErrGone once it
// has exited.
func (h startHandle) signal(sig syscall.Signal) error {
	if h.gone() {
		return &classified{what: fmt.Sprintf("signal %d", h.pid), kind: proc.ErrGone, err: unix.ESRCH}
	}
	if err := unix.Kill(h.pid, sig); err != nil {
		return fmt.Errorf("signal %s to %d: %w", signame.Name(sig), h.pid, err)
	}
	return nil
}

// pollExited looks every 10 ms until at least one of n processes has
// exited or the deadline passes, and reports which have.
func pollExited(n int, gone func(i int) bool, deadline time.Time) []bool {
	done := make([]bool, n)
	for {
		any := false
		for i := range done {
			done[i] = gone(i)
			any = any || done[i]
		}
		if any || n == 0 || !time.Now().Before(deadline) {
			return done
		}
		time.Sleep(min(10*time.Millisecond, time.Until(deadline)))
	}
}

// othersAlive counts the threads of pid other than its leader still
// running: a process whose leader shows as a zombie has not exited until
// they have too. Linux lists them in /proc/PID/task; macOS reports a
// process a zombie only once all its threads have exited, and elsewhere
// nothing is known of threads: 0.
func othersAlive(fs proc.FS, pid int) int {
	if runtime.GOOS != "linux" {
		return 0
	}
	tasks, err := os.ReadDir(fs.Root() + "/" + strconv.Itoa(pid) + "/task")
	if err != nil {
		return 0
	}
	return max(0, len(tasks)-1)
}
