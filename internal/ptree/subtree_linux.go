//go:build linux && !tetherportable

package ptree

import (
	"strconv"

	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/procid"
)

// Subtree lists the live (non-zombie) descendants of root, leaving out
// skip and its own descendants. For a child subreaper this is the whole
// tree it started, setsid and double forks included, with no scan of
// every process. A children list names processes, never threads, so the
// stat file alone says enough about each.
func Subtree(fs proc.FS, root, skip int) []procid.ID {
	return walkLists(fs, Children(fs, root), skip)
}

// walkLists is the walk from queue by the kernel's children lists, each
// read as the process's stat says (childrenOf).
func walkLists(fs proc.FS, queue []int, skip int) []procid.ID {
	return walk(queue, map[int]bool{skip: true}, func(pid int) (proc.Stat, []int, bool) {
		st, err := fs.Stat(pid)
		if err != nil {
			return st, nil, false
		}
		return st, childrenOf(fs, st), true
	})
}

// childrenLists says that the kernel's lists of children are followed:
// what Strays reads instead of every process.
const childrenLists = true

// childrenOf is Children for a process whose stat was just read: a live
// process of one thread has one list, its own, read without listing its
// tasks. A zombie may still have threads running (its leader exited
// first) whose children are theirs, and its count does not tell that
// from none: its tasks are listed.
func childrenOf(fs proc.FS, st proc.Stat) []int {
	if st.Threads != 1 || st.Zombie() {
		return Children(fs, st.PID)
	}
	pid := strconv.Itoa(st.PID)
	kids, _, _ := proc.ReadChildren(fs.Root()+"/"+pid+"/task/"+pid+"/children", nil, nil)
	return kids
}
