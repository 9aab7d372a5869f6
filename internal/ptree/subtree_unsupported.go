//go:build !linux || tetherportable

package ptree

import (
	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/procid"
)

// Subtree lists the live (non-zombie) descendants of root, leaving out
// skip and its own descendants. With no per-thread children list to
// follow (macOS, and the portable path on Linux, which takes macOS's
// way so that it is tested where CI runs), it is the walk by parent
// links over a snapshot (Snapshot.Subtree), one pass over every process,
// so that callers ask for a subtree the same way everywhere. Where there
// is no reader at all it lists nothing.
func Subtree(fs proc.FS, root, skip int) []procid.ID {
	snap, err := ReadSnapshot(fs)
	if err != nil {
		return nil
	}
	return snap.Subtree([]int{root}, skip, 0)
}
