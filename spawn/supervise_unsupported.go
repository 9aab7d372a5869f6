//go:build !linux && !darwin

package spawn

import (
	"context"
	"errors"
	"os/exec"
)

// Supervise fails: this platform has no parent-death signal.
func Supervise(ctx context.Context, cmd *exec.Cmd, opts Options) (Exit, error) {
	return Exit{}, &StartError{Err: errUnsupported}
}

// Exec fails: this platform has no parent-death signal.
func Exec(cmd *exec.Cmd, opts ExecOptions) error {
	return &StartError{Err: errUnsupported}
}

// markInit has nothing to mark: no helper is started here.
func markInit() {}

// errUnsupported is returned where the platform has no parent-death
// signal: an [errors.ErrUnsupported], which is how a caller tells it.
var errUnsupported error = unsupported{}

// unsupported is errUnsupported's type: made without fmt, whose first
// use at start-up costs every run of tether.
type unsupported struct{}

func (unsupported) Error() string {
	return "tethering a child needs a parent-death signal, which only Linux has"
}

func (unsupported) Unwrap() error { return errors.ErrUnsupported }
