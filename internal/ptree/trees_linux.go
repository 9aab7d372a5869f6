//go:build linux && !tetherportable

package ptree

import (
	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/procid"
)

// Trees is one look at several trees: see Look. Here each subtree is
// read from the kernel's children lists afresh, as Subtree reads them.
type Trees struct{ fs proc.FS }

// Subtree is the subtree of the process whose stat st was just read,
// whose children are then read as the stat says (one list for a process
// of one thread).
func (t *Trees) Subtree(st proc.Stat) []procid.ID {
	return walkLists(t.fs, childrenOf(t.fs, st), 0)
}

// AliveWithSubtrees lists those of ms that are still the processes they
// name, each with its live descendants: a list of a tree written down
// earlier, read again once the tree may have scattered. Each member's
// stat, read to tell it alive, says how to read its children.
func (t *Trees) AliveWithSubtrees(ms []procid.ID) []procid.ID {
	var out, below []procid.ID
	for _, m := range ms {
		st, err := t.fs.Stat(m.PID)
		if err != nil || st.StartTime != m.StartTime || st.Zombie() {
			continue
		}
		out = append(out, m)
		below = append(below, walkLists(t.fs, childrenOf(t.fs, st), 0)...)
	}
	return append(out, below...)
}
