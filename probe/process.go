package probe

import (
	"errors"
	"fmt"
	"strconv"
)

// Process is what the operating system tells about a PID without reading
// its environment.
type Process struct {
	PID          int
	PPID         int
	PGID         int
	Session      int
	UID          int // real user id; -1 when unknown
	Start        uint64
	Zombie       bool
	KernelThread bool
	Comm         string
}

var (
	// ErrGone means no process has the PID.
	ErrGone = errors.New("no such process")
	// ErrUnverifiable means a process may have the PID, but what it is
	// cannot be read: another user's, hidden by hidepid, or an operating
	// system probe has no reader for.
	ErrUnverifiable = errors.New("cannot be verified")
	// ErrExecuting means the process is in the middle of an execve and
	// its environment is not laid out yet: read it again in a moment. It
	// comes wrapped with ErrUnverifiable.
	ErrExecuting = errors.New("in the middle of an execve: its environment is not laid out yet")
)

// ThreadError is returned for the id of a thread that is not the main
// thread of its process: a thread id is not a process.
type ThreadError struct {
	TID  int
	Tgid int
}

func (e *ThreadError) Error() string {
	return fmt.Sprintf("%d is a thread of process %d, not a process", e.TID, e.Tgid)
}

// readError keeps the operating system's error for the message while
// classifying it as ErrGone or ErrUnverifiable for errors.Is.
type readError struct {
	what string
	kind error
	err  error
}

func (e *readError) Error() string   { return e.what + ": " + e.err.Error() }
func (e *readError) Unwrap() []error { return []error{e.kind, e.err} }

// ParsePID parses a PID given on a command line: a decimal number from 1
// to the largest PID the system hands out.
func ParsePID(s string) (int, error) {
	if s == "" {
		return 0, errors.New("invalid PID \"\": empty")
	}
	for i := 0; i < len(s); i++ {
		if (s[i] < '0' || s[i] > '9') && !(i == 0 && s[i] == '-') {
			return 0, fmt.Errorf("invalid PID %q: not a number", s)
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	max := MaxPID()
	switch {
	case err != nil && s[0] == '-', err == nil && n <= 0:
		return 0, fmt.Errorf("invalid PID %q: must be a positive number", s)
	case err != nil, n > int64(max):
		return 0, fmt.Errorf("invalid PID %q: larger than the largest PID, %d", s, max)
	}
	return int(n), nil
}
