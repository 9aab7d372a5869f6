package spawn

import (
	"errors"
	"fmt"
	"strings"
)

// StartError is a failure to start the command: nothing of the run is
// left. With Exec set, the command itself could not be executed (found,
// but refused by the kernel, or not found): Err wraps the cause, which
// errors.Is tells apart (exec.ErrNotFound or fs.ErrNotExist: no such
// command; fs.ErrPermission: not executable; the kernel's errno).
// Otherwise the run's own set-up failed: a [ContainError], a context
// done before the start, [ErrParentGone] from [Exec], or what else Err
// says.
type StartError struct {
	Err  error // what failed
	Exec bool  // the command's own execution failed, not the set-up
}

// Error is what failed, as a shell would say it: "x: command not found".
func (e *StartError) Error() string { return e.Err.Error() }

// Unwrap gives the cause, for errors.Is and errors.As.
func (e *StartError) Unwrap() error { return e.Err }

// ErrParentGone is why [Exec] did not execute its command: the parent it
// was to be tied to died before the parent-death signal was armed. The
// signal was delivered to the calling process, as the kernel would have
// delivered it.
var ErrParentGone = errors.New("parent died before the command started")

// ContainError is a containment that could not be had (a
// [StartError]'s Err): each mode tried, and why it failed.
type ContainError struct {
	Mode  Containment
	Tried []string // "cgroup: ...", "pidns: ..."
}

// Error names the mode and what each containment tried said.
func (e *ContainError) Error() string {
	return fmt.Sprintf("containment %s: nothing started: %s", e.Mode, strings.Join(e.Tried, "; "))
}
