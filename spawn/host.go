package spawn

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

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
	Left        []int // the PIDs of the tree's processes still alive
	Err         error
}

// Error names the child, its run, the PIDs left and why.
func (e *StopError) Error() string {
	pids := make([]string, len(e.Left))
	for i, pid := range e.Left {
		pids[i] = strconv.Itoa(pid)
	}
	return fmt.Sprintf("stop %s (run %s): %d left (%s): %v", e.Name, e.RunID, len(e.Left), strings.Join(pids, " "), e.Err)
}

// Unwrap gives the cause: the context's error, when it ended first.
func (e *StopError) Unwrap() error { return e.Err }
