package proc

import "github.com/tetherproc/tether/procid"

// Descendants lists the live (non-zombie) descendants of root, leaving
// out skip and its own descendants, by the parent links of every process:
// the walk where there is no per-process list of children (macOS) or no
// subreaper to keep the tree below root. With pgid > 0 the members of
// that process group are listed too, wherever their parents are. An
// orphan already re-parented to init that left the group is not among
// them; what finds it is the run id it carries.
func (fs FS) Descendants(root, skip, pgid int) []procid.ID {
	snap, err := fs.Snapshot()
	if err != nil {
		return nil
	}
	return snap.Descendants([]int{root}, skip, pgid)
}

// walk lists the live processes reached from queue, breadth first, each
// once, none of seen: next gives a process's stat, its children, and
// whether it could be read at all.
func walk(queue []int, seen map[int]bool, next func(pid int) (Stat, []int, bool)) []procid.ID {
	var out []procid.ID
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		if seen[pid] {
			continue
		}
		seen[pid] = true
		st, children, ok := next(pid)
		if !ok {
			continue
		}
		if !st.Zombie() {
			out = append(out, procid.ID{PID: pid, StartTime: st.StartTime})
		}
		queue = append(queue, children...)
	}
	return out
}
