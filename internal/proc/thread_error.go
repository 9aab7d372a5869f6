package proc

import "fmt"

// ThreadError is returned for the id of a thread that is not the main
// thread of its process: a thread id is not a process.
type ThreadError struct {
	TID  int
	TGID int
}

func (e *ThreadError) Error() string {
	return fmt.Sprintf("%d is a thread of process %d, not a process", e.TID, e.TGID)
}
