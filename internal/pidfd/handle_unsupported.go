//go:build !unix

package pidfd

import (
	"syscall"
	"time"

	"github.com/tetherproc/tether/internal/proc"
)

// Handle cannot be had on this platform: Open always fails, closed.
type Handle struct{}

// Open fails as the reader of this platform fails (it has none), and
// nothing unverified is ever signalled.
func Open(fs proc.FS, pid int) (*Handle, error) {
	_, err := fs.Process(pid)
	return nil, err
}

// Close does nothing.
func (h *Handle) Close() {}

// Holds is false: see Open.
func (h *Handle) Holds(uint64) bool { return false }

// Signal fails: see Open. The error is the reader's own, so that it
// reads as every other failure of this platform does.
func (h *Handle) Signal(sig syscall.Signal) error {
	_, err := proc.Host().Process(0)
	return err
}

// Exited reports nothing exited: see Open.
func Exited(hs []*Handle, deadline time.Time) []bool { return make([]bool, len(hs)) }

// ByPidfd is false: see Open.
func ByPidfd() bool { return false }
