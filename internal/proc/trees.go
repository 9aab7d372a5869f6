package proc

// Trees reads the subtrees of one look at several trees (a Host's
// children, each tick and each look of a Stop): on Linux from the
// kernel's children lists, as FS.Subtree does; where a subtree is a walk
// over every process (macOS, and the portable path), from one snapshot of
// the table taken at the first subtree asked for and shared by the rest,
// not one per tree.
type Trees struct {
	fs    FS
	snap  *Snapshot
	taken bool
}

// Trees starts one look at several trees.
func (fs FS) Trees() *Trees { return &Trees{fs: fs} }

// AliveWithSubtrees is FS.AliveWithSubtrees within the look.
func (t *Trees) AliveWithSubtrees(ms []Member) []Member {
	var out []Member
	var roots []int
	for _, m := range ms {
		if t.fs.Alive(m) {
			out = append(out, m)
			roots = append(roots, m.PID)
		}
	}
	return append(out, t.subtreesOf(roots)...)
}
