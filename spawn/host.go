package spawn

import "errors"

// HostOptions is how a [Host] is made; the zero value is a Host with no
// watchdog.
type HostOptions struct {
	// Reexec says that this program's main calls [Init] first, so that
	// the Host may start the program again as its watchdog: one process,
	// started with the first child, that ends every child's tree should
	// the program be killed with SIGKILL. Without it, only the children
	// themselves are tied to the program (the parent-death signal), not
	// what they start.
	Reexec bool
}

// ErrHostClosed is returned by [Host.Start] once [Host.Close] was called.
var ErrHostClosed = errors.New("spawn: host closed")

// StopError is a tree that [Child.Stop] or [Host.Close] could not end:
// processes still alive after SIGKILL (stuck in the kernel), or left
// when the context ended.
type StopError struct {
	Name, RunID string
	Left        int // processes of the tree still alive
	Err         error
}

func (e *StopError) Error() string {
	return "stop " + e.Name + " (run " + e.RunID + "): " + e.Err.Error()
}

// Unwrap gives the cause: the context's error, when it ended first.
func (e *StopError) Unwrap() error { return e.Err }
