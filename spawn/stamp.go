//go:build linux || darwin

package spawn

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"sync"
	"syscall"

	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/marker"
	"github.com/tetherproc/tether/procid"
)

// resolve fills in the defaults for a child running command.
func (c Options) resolve(command string) (Options, error) {
	// What was given was validated by the entry point (Validate); what
	// is filled in here is valid by construction.
	if c.Name == "" {
		c.Name = marker.NameFor(command)
	}
	if c.Signal == 0 {
		c.Signal = syscall.SIGTERM
	}
	if c.RunID == "" {
		c.RunID = marker.NewRunID()
	}
	if c.Supervisor.PID == 0 {
		s, err := selfOrParent(false)
		if err != nil {
			return c, err
		}
		c.Supervisor = s
	}
	return c, nil
}

// selfOrParent names this process, or its parent, for TETHER_SUPERVISOR:
// its PID in this process's own namespace (getpid, getppid), and its
// start time read through /proc/self, whose numbering may be another
// namespace's (a new PID namespace with the old /proc still mounted).
func selfOrParent(parent bool) (procid.ID, error) {
	if !parent {
		return selfID()
	}
	fs := proc.Host()
	self, err := fs.SelfStat()
	if err != nil {
		return procid.ID{}, fmt.Errorf("read own start time: %w", err)
	}
	st, err := fs.Stat(self.PPID) // the parent, as /proc numbers it
	if err != nil {
		return procid.ID{}, fmt.Errorf("read start time of parent %d: %w", os.Getppid(), err)
	}
	return procid.ID{PID: os.Getppid(), StartTime: st.StartTime}, nil
}

// selfID is this process, read once: a Host stamps it on every child.
var selfID = sync.OnceValues(func() (procid.ID, error) {
	self, err := proc.Host().SelfStat()
	if err != nil {
		return procid.ID{}, fmt.Errorf("read own start time: %w", err)
	}
	return procid.ID{PID: os.Getpid(), StartTime: self.StartTime}, nil
})

// selfPIDNamespace is this process's PID namespace, read once: unshare
// and setns change only where its children are born.
var selfPIDNamespace = sync.OnceValues(func() (uint64, error) { return proc.Host().SelfPIDNamespace() })

// environ stamps env (the calling process's environment when nil).
func (c Options) environ(env []string) []string {
	if env == nil {
		env = os.Environ()
	}
	st := c.Stamp
	if st.PIDNamespace == 0 {
		// The supervisor is this process or its parent, in this
		// process's namespace: a check from another namespace maps its
		// PID through it.
		st.PIDNamespace, _ = selfPIDNamespace()
	}
	return c.Markers.Environ(env, st)
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
