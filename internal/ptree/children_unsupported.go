//go:build !linux

package ptree

import (
	"github.com/tetherproc/tether/internal/proc"
)

// Children lists nothing here: there is no per-thread children list, and
// callers that walk a tree fall back on what else they know (Subtree
// walks the parent links).
func Children(fs proc.FS, pid int) []int { return nil }
