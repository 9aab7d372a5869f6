package ptree

import (
	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/procid"
)

// walk lists the live processes reached from queue, breadth first, each
// once, none of seen: next gives a process's stat, its children, and
// whether it could be read at all.
func walk(queue []int, seen map[int]bool, next func(pid int) (proc.Stat, []int, bool)) []procid.ID {
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
