package ptree

import (
	"github.com/tetherproc/tether/internal/proc"
)

// Look starts one look at several trees (a Host's children, each tick
// and each look of a Stop): on Linux the subtrees are read from the
// kernel's children lists, as Subtree reads them; where a subtree is a
// walk over every process (macOS, and the portable path), from one
// snapshot of the table taken at the first subtree asked for and shared
// by the rest, not one per tree.
func Look(fs proc.FS) *Trees { return &Trees{fs: fs} }
