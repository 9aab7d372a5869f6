package spawn

import (
	"fmt"
	"strconv"
	"strings"
)

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
