//go:build unix && (!linux || tetherportable)

package pidfd

import (
	"syscall"
	"time"

	"github.com/tetherproc/tether/internal/proc"
)

// Handle holds one process by its PID and the start time it had when
// opened: there is no pidfd here (handle_start.go).
type Handle struct{ h startHandle }

// Open opens a handle on pid; proc.ErrGone when no process has it.
func Open(fs proc.FS, pid int) (*Handle, error) {
	h, err := openByStart(fs, pid)
	if err != nil {
		return nil, err
	}
	return &Handle{h}, nil
}

// Close releases the handle.
func (h *Handle) Close() {}

// Signal sends sig to the process if it still holds its PID; ErrGone
// once it has exited.
func (h *Handle) Signal(sig syscall.Signal) error { return h.h.signal(sig) }

// Exited polls until at least one of hs has exited or the deadline
// passes, and reports which have exited.
func Exited(hs []*Handle, deadline time.Time) []bool {
	return pollExited(len(hs), func(i int) bool { return hs[i].h.gone() }, deadline)
}

// OpenChild has no pidfd to open here: ok is false, and the caller reads
// the process table as it would without a handle.
func OpenChild(pid int) (h *Handle, ok bool) { return nil, false }

// Reaped cannot be asked here.
func (h *Handle) Reaped() (reaped, ok bool) { return false, false }

// Done cannot be told here without a read of the table: false.
func (h *Handle) Done() bool { return false }

// Holds reports whether h still holds a live process whose start time is
// start: its start time is read again.
func (h *Handle) Holds(start uint64) bool { return h.h.startTime == start && !h.h.gone() }

// ByPidfd is false: a Handle here is the PID and start time.
func ByPidfd() bool { return false }
