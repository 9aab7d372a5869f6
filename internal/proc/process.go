package proc

import (
	"errors"
)

// Process is what the kernel tells about a PID without its environment.
type Process struct {
	PID       int
	PPID      int
	PGID      int
	Session   int
	UID       int // real user id; -1 when unknown
	StartTime uint64
	Zombie    bool
	// KernelThread is true for the kernel's own threads, which have no
	// environment and are never anyone's to signal.
	KernelThread bool
	Comm         string
	// NSpid is its PID in each PID namespace it is in, outermost first,
	// from the status read that gave UID (nil where not told).
	NSpid []int
}

var (
	// ErrGone means no process has the PID.
	ErrGone = errors.New("no such process")
	// ErrUnverifiable means a process may have the PID, but what it is
	// cannot be read: another user's, hidden by hidepid, or on a platform
	// with no reader.
	ErrUnverifiable = errors.New("cannot be verified")
	// ErrExecuting means the process is in the middle of an execve and its
	// environment is not laid out yet: read it again in a moment. It comes
	// wrapped with ErrUnverifiable.
	ErrExecuting = errors.New("in the middle of an execve: its environment is not laid out yet")
)

// readError keeps the operating system's error for the message while
// classifying it as ErrGone or ErrUnverifiable for errors.Is.
type readError struct {
	what string
	kind error
	err  error
}

func (e *readError) Error() string   { return e.what + ": " + e.err.Error() }
func (e *readError) Unwrap() []error { return []error{e.kind, e.err} }
