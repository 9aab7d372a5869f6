//go:build !linux || tetherportable

package proc

import "github.com/tetherproc/tether/procid"

// Subtree lists the live (non-zombie) descendants of root, leaving out
// skip and its own descendants. With no per-thread children list to
// follow (macOS, and the portable path on Linux, which takes macOS's
// way so that it is tested where CI runs), it is the walk by parent
// links, one pass over every process, so that callers ask for a subtree
// the same way everywhere. Where there is no reader at all it lists
// nothing, as Descendants does.
func (fs FS) Subtree(root, skip int) []procid.ID { return fs.Descendants(root, skip, 0) }

// Trees is one look at several trees, from one snapshot: see FS.Trees.
type Trees struct {
	fs    FS
	snap  *Snapshot
	taken bool
}

// Subtree is FS.Subtree from the look's one snapshot.
func (t *Trees) Subtree(root, skip int) []procid.ID {
	if s := t.snapshot(); s != nil {
		return s.Descendants([]int{root}, skip, 0)
	}
	return nil
}

func (t *Trees) subtreesOf(roots []int) []procid.ID {
	if len(roots) == 0 {
		return nil // no snapshot taken for none
	}
	if s := t.snapshot(); s != nil {
		return s.Descendants(roots, 0, 0)
	}
	return nil
}

// snapshot is the look's one snapshot of the table; nil when it cannot
// be read.
func (t *Trees) snapshot() *Snapshot {
	if !t.taken {
		t.taken = true
		t.snap, _ = t.fs.Snapshot()
	}
	return t.snap
}

// SubtreeOf is the whole subtree of the process whose stat st was just read.
func (t *Trees) SubtreeOf(st Stat) []procid.ID { return t.Subtree(st.PID, 0) }

// AliveWithSubtrees is FS.AliveWithSubtrees within the look.
func (t *Trees) AliveWithSubtrees(ms []procid.ID) []procid.ID {
	var out []procid.ID
	var roots []int
	for _, m := range ms {
		if t.fs.Alive(m) {
			out = append(out, m)
			roots = append(roots, m.PID)
		}
	}
	return append(out, t.subtreesOf(roots)...)
}
