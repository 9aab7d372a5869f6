package kill

import (
	"fmt"
	"syscall"
	"time"

	"github.com/tetherproc/tether/internal/pidfd"
	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/procid"
)

// WaitAfterKill bounds the wait for processes to go after SIGKILL: only a
// process stuck in the kernel (D state) takes longer, and past it the
// escalation reports the survivors instead of waiting on them forever.
const WaitAfterKill = 10 * time.Second

// Signal sends sig to m as this process's /proc numbers it: SignalIn on
// proc.Host().
func Signal(m procid.ID, sig syscall.Signal) error { return SignalIn(proc.Host(), m, sig) }

// SignalIn sends sig to m, as fs numbers it, through a handle opened before m's start time is
// read again, so that a PID recycled since m was seen (a grandchild
// reaped by its own parent) is never signalled. ErrGone when m no longer
// holds its PID.
func SignalIn(fs proc.FS, m procid.ID, sig syscall.Signal) error {
	h, err := pidfd.Open(fs, m.PID)
	if err != nil {
		return err
	}
	defer h.Close()
	st, err := fs.Stat(m.PID)
	switch {
	case err != nil:
		return err
	case st.StartTime != m.StartTime:
		return fmt.Errorf("signal %d: PID recycled (start time %d, was %d): %w", m.PID, st.StartTime, m.StartTime, proc.ErrGone)
	case st.Zombie():
		return fmt.Errorf("signal %d: a zombie: %w", m.PID, proc.ErrGone)
	}
	return h.Signal(sig)
}
