//go:build linux && !tetherportable

package proc

// Subtree lists the live (non-zombie) descendants of root, leaving out
// skip and its own descendants. For a child subreaper this is the whole
// tree it started, setsid and double forks included, with no scan of
// every process. A children list names processes, never threads, so the
// stat file alone says enough about each.
func (fs FS) Subtree(root, skip int) []Member {
	return walk(fs.Children(root), map[int]bool{skip: true}, func(pid int) (Stat, []int, bool) {
		st, err := fs.Stat(pid)
		return st, fs.Children(pid), err == nil
	})
}

// SubtreesOf lists the live descendants of each of roots.
func (fs FS) SubtreesOf(roots []int) []Member {
	var out []Member
	for _, pid := range roots {
		out = append(out, fs.Subtree(pid, 0)...)
	}
	return out
}

// childrenLists says that the kernel's lists of children are followed:
// what Strays reads instead of every process.
const childrenLists = true

// Trees is one look at several trees: see FS.Trees.
type Trees struct{ fs FS }

// Subtree is FS.Subtree: the kernel's lists are read afresh for each.
func (t *Trees) Subtree(root, skip int) []Member { return t.fs.Subtree(root, skip) }

func (t *Trees) subtreesOf(roots []int) []Member { return t.fs.SubtreesOf(roots) }
