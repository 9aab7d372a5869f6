package proc

// Descendants lists the live (non-zombie) descendants of root, leaving
// out skip and its own descendants, by the parent links of every process:
// the walk where there is no per-process list of children (macOS) or no
// subreaper to keep the tree below root. With pgid > 0 the members of
// that process group are listed too, wherever their parents are. An
// orphan already re-parented to init that left the group is not among
// them; what finds it is the run id it carries.
func (fs FS) Descendants(root, skip, pgid int) []Member {
	return fs.DescendantsOf([]int{root}, skip, pgid)
}

// DescendantsOf is Descendants of several roots, from one pass over every
// process; the roots themselves are not listed.
func (fs FS) DescendantsOf(roots []int, skip, pgid int) []Member {
	pids, err := fs.PIDs()
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	stats := map[int]Stat{}
	for _, pid := range pids {
		st, err := fs.Stat(pid)
		if err != nil || pid == st.PPID {
			continue
		}
		stats[pid] = st
		children[st.PPID] = append(children[st.PPID], pid)
	}
	var queue []int
	seen := map[int]bool{skip: true}
	for _, root := range roots {
		queue = append(queue, children[root]...)
		seen[root] = true
	}
	if pgid > 0 {
		for pid, st := range stats {
			if st.PGID == pgid {
				queue = append(queue, pid)
			}
		}
	}
	return walk(queue, seen, func(pid int) (Stat, []int, bool) {
		st, ok := stats[pid]
		return st, children[pid], ok
	})
}

// walk lists the live processes reached from queue, breadth first, each
// once, none of seen: next gives a process's stat, its children, and
// whether it could be read at all.
func walk(queue []int, seen map[int]bool, next func(pid int) (Stat, []int, bool)) []Member {
	var out []Member
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
			out = append(out, Member{PID: pid, StartTime: st.StartTime})
		}
		queue = append(queue, children...)
	}
	return out
}
