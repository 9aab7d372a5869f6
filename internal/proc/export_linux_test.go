package proc

import "github.com/tetherproc/tether/procid"

// ChildrenLists says, to the tests, whether Strays follows the kernel's
// lists of children in this build (not on the portable path).
const ChildrenLists = childrenLists

// Born is born with nothing left out, for the tests of the span's limits.
func (fs FS) Born(from, to int, since uint64) ([]procid.ID, bool) {
	return fs.born(from, to, since, nil)
}
