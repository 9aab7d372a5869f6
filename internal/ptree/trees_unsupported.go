//go:build !linux || tetherportable

package ptree

import (
	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/procid"
)

// Trees is one look at several trees, from one snapshot: see Look.
type Trees struct {
	fs    proc.FS
	snap  *Snapshot
	taken bool
}

// Subtree is the subtree of the process whose stat st was just read,
// from the look's one snapshot.
func (t *Trees) Subtree(st proc.Stat) []procid.ID {
	if s := t.snapshot(); s != nil {
		return s.Subtree([]int{st.PID}, 0, 0)
	}
	return nil
}

func (t *Trees) subtreesOf(roots []int) []procid.ID {
	if len(roots) == 0 {
		return nil // no snapshot taken for none
	}
	if s := t.snapshot(); s != nil {
		return s.Subtree(roots, 0, 0)
	}
	return nil
}

// snapshot is the look's one snapshot of the table; nil when it cannot
// be read.
func (t *Trees) snapshot() *Snapshot {
	if !t.taken {
		t.taken = true
		t.snap, _ = ReadSnapshot(t.fs)
	}
	return t.snap
}

// AliveWithSubtrees lists those of ms that are still the processes they
// name, each with its live descendants: a list of a tree written down
// earlier, read again once the tree may have scattered.
func (t *Trees) AliveWithSubtrees(ms []procid.ID) []procid.ID {
	var out []procid.ID
	var roots []int
	for _, m := range ms {
		if Alive(t.fs, m) {
			out = append(out, m)
			roots = append(roots, m.PID)
		}
	}
	return append(out, t.subtreesOf(roots)...)
}
