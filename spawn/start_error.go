package spawn

import (
	"errors"
	"fmt"
	"io/fs"
	"os/exec"
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

// containFailed is the error of a containment that could not be had.
func containFailed(mode Containment, tried []string) error {
	return &StartError{Err: &ContainError{Mode: mode, Tried: tried}}
}

// execFailed is the StartError of a command the kernel would not
// execute ("exec /srv/app: permission denied"), its errno the cause.
func execFailed(path string, err error) *StartError {
	return &StartError{Exec: true, Err: &fs.PathError{Op: "exec", Path: path, Err: err}}
}

// lookupError is cmd.Err, the failure of exec.Command's look-up in
// PATH, worded as a shell words it, its cause kept for errors.Is.
func lookupError(cmd *exec.Cmd) error {
	name := cmd.Path
	var ee *exec.Error
	if errors.As(cmd.Err, &ee) {
		name = ee.Name
	}
	switch err := cmd.Err; {
	case errors.Is(err, exec.ErrNotFound), errors.Is(err, fs.ErrNotExist):
		return &StartError{Exec: true, Err: &causeError{name + ": command not found", cmd.Err}}
	case errors.Is(err, fs.ErrPermission):
		return &StartError{Exec: true, Err: &causeError{name + ": not executable", cmd.Err}}
	default:
		return &StartError{Exec: true, Err: err}
	}
}

// causeError words an error anew and keeps its cause for errors.Is.
type causeError struct {
	msg   string
	cause error
}

func (e *causeError) Error() string { return e.msg }
func (e *causeError) Unwrap() error { return e.cause }
