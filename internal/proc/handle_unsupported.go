//go:build !unix

package proc

import (
	"syscall"
	"time"
)

// Handle cannot be had on this platform: Open always fails, closed.
type Handle struct{}

// Open fails: this platform has no reader, and nothing unverified is
// ever signalled.
func (fs FS) Open(pid int) (*Handle, error) { return nil, unsupported(pid) }

// Close does nothing.
func (h *Handle) Close() {}

// Signal fails: see Open.
func (h *Handle) Signal(sig syscall.Signal) error { return unsupported(0) }

// Exited reports nothing exited: see Open.
func Exited(hs []*Handle, deadline time.Time) []bool { return make([]bool, len(hs)) }

// Holds is false: see Open.
func (h *Handle) Holds(uint64) bool { return false }
