package ptree

import (
	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/procid"
)

// ChildrenLists says, to the tests, whether Strays follows the kernel's
// lists of children in this build (not on the portable path).
const ChildrenLists = childrenLists

// Born is born with nothing left out, for the tests of the span's limits.
func Born(fs proc.FS, from, to int, since uint64) ([]procid.ID, bool) {
	return born(fs, from, to, since, nil)
}
