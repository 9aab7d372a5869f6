package abandoned

import "github.com/tetherproc/tether/procid"

// Ended is what became of one tree [End] was given.
type Ended struct {
	Tree Tree
	// Ended: every member is gone.
	Ended bool
	// NoLonger, when not zero, is why the tree was not signalled: looked
	// at again, it is no longer abandoned (a client holds its other end
	// again, say), can no longer be told to be, or changed.
	NoLonger Why
	// Gone: the tree had ended by itself before it was looked at again.
	Gone bool
	// Left are the members still alive after SIGKILL, or when ctx ended.
	Left []procid.ID
	// Err is the first signal that could not be sent to a member that
	// was still alive (EPERM, say).
	Err error
}
