//go:build linux && !tetherportable

package proc

import (
	"strconv"

	"github.com/tetherproc/tether/procid"
)

// Subtree lists the live (non-zombie) descendants of root, leaving out
// skip and its own descendants. For a child subreaper this is the whole
// tree it started, setsid and double forks included, with no scan of
// every process. A children list names processes, never threads, so the
// stat file alone says enough about each.
func (fs FS) Subtree(root, skip int) []procid.ID {
	return fs.walk(fs.Children(root), skip)
}

// walk is the walk from queue by the kernel's children lists, each read
// as the process's stat says (childrenOf).
func (fs FS) walk(queue []int, skip int) []procid.ID {
	return walk(queue, map[int]bool{skip: true}, func(pid int) (Stat, []int, bool) {
		st, err := fs.Stat(pid)
		if err != nil {
			return st, nil, false
		}
		return st, fs.childrenOf(st), true
	})
}

// childrenLists says that the kernel's lists of children are followed:
// what Strays reads instead of every process.
const childrenLists = true

// Trees is one look at several trees: see FS.Trees.
type Trees struct{ fs FS }

// Subtree is FS.Subtree: the kernel's lists are read afresh for each.
func (t *Trees) Subtree(root, skip int) []procid.ID { return t.fs.Subtree(root, skip) }

// SubtreeOf is the whole subtree of the process whose stat st was just read,
// whose children are then read as the stat says (one list for a process
// of one thread).
func (t *Trees) SubtreeOf(st Stat) []procid.ID {
	return t.fs.walk(t.fs.childrenOf(st), 0)
}

// AliveWithSubtrees is FS.AliveWithSubtrees within the look: each
// member's stat, read to tell it alive, says how to read its children.
func (t *Trees) AliveWithSubtrees(ms []procid.ID) []procid.ID {
	var out, below []procid.ID
	for _, m := range ms {
		st, err := t.fs.Stat(m.PID)
		if err != nil || st.StartTime != m.StartTime || st.Zombie() {
			continue
		}
		out = append(out, m)
		below = append(below, t.fs.walk(t.fs.childrenOf(st), 0)...)
	}
	return append(out, below...)
}

// childrenOf is Children for a process whose stat was just read: a live
// process of one thread has one list, its own, read without listing its
// tasks. A zombie may still have threads running (its leader exited
// first) whose children are theirs, and its count does not tell that
// from none: its tasks are listed.
func (fs FS) childrenOf(st Stat) []int {
	if st.Threads != 1 || st.Zombie() {
		return fs.Children(st.PID)
	}
	pid := strconv.Itoa(st.PID)
	kids, _, _ := readChildren(fs.root+"/"+pid+"/task/"+pid+"/children", nil, nil)
	return kids
}
