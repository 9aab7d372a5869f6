package ptree

import (
	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/procid"
)

// Snapshot is the process table as one pass read it: each process's
// parent, group, start time, state and, where the platform gives it in
// the same pass, its user. A walk of the tree by parent links is made on
// it, not on a second read of every process: macOS gives the whole table
// in one sysctl (kern.proc.all), and asking it again process by process
// costs a sysctl each.
type Snapshot struct {
	procs    map[int]proc.Process
	children map[int][]int
	// Monotonic says that start times are counted on a clock that never
	// goes back (Linux's boot clock, in ticks): a process shown as
	// started before another was. macOS's are wall-clock time, which can
	// be set back.
	Monotonic bool
}

// newSnapshot is the snapshot of procs; a process that is its own
// parent (the kernel's PID 0 as some tables show it) is left out of the
// links.
func newSnapshot(procs []proc.Process, monotonic bool) *Snapshot {
	s := &Snapshot{procs: make(map[int]proc.Process, len(procs)), children: make(map[int][]int), Monotonic: monotonic}
	for _, p := range procs {
		s.procs[p.PID] = p
		if p.PPID != p.PID {
			s.children[p.PPID] = append(s.children[p.PPID], p.PID)
		}
	}
	return s
}

// Len is the number of processes in the snapshot.
func (s *Snapshot) Len() int { return len(s.procs) }

// Process gives pid as the snapshot shows it.
func (s *Snapshot) Process(pid int) (proc.Process, bool) {
	p, ok := s.procs[pid]
	return p, ok
}

// Each calls fn for every process of the snapshot, in no order.
func (s *Snapshot) Each(fn func(proc.Process)) {
	for _, p := range s.procs {
		fn(p)
	}
}

// Alive reports whether m is in the snapshot and not a zombie: the same
// PID with the same start time.
func (s *Snapshot) Alive(m procid.ID) bool {
	p, ok := s.procs[m.PID]
	return ok && p.StartTime == m.StartTime && !p.Zombie
}

// Subtree lists the live (non-zombie) descendants of roots by their
// parent links, leaving out skip and its own descendants: the walk where
// there is no per-process list of children (macOS) or no subreaper to
// keep the tree below a root. With pgid > 0 the members of that process
// group are listed too, wherever their parents are; an orphan already
// re-parented to init that left the group is not among them (what finds
// it is the run id it carries). The roots themselves are not listed. A
// child is never older than its parent: a link that says otherwise is an
// older process whose parent's PID has been recycled since it was read,
// and is not followed.
func (s *Snapshot) Subtree(roots []int, skip, pgid int) []procid.ID {
	var queue []int
	seen := map[int]bool{skip: true}
	for _, root := range roots {
		queue = append(queue, s.kids(root)...)
		seen[root] = true
	}
	if pgid > 0 {
		for pid, p := range s.procs {
			if p.PGID == pgid {
				queue = append(queue, pid)
			}
		}
	}
	return walk(queue, seen, func(pid int) (proc.Stat, []int, bool) {
		p, ok := s.procs[pid]
		if !ok {
			return proc.Stat{}, nil, false
		}
		st := proc.Stat{PID: pid, PPID: p.PPID, PGID: p.PGID, StartTime: p.StartTime, State: 'S'}
		if p.Zombie {
			st.State = 'Z'
		}
		return st, s.kids(pid), true
	})
}

// kids are the children of pid whose links can be trusted: on a
// monotonic clock, those not older than pid.
func (s *Snapshot) kids(pid int) []int {
	all := s.children[pid]
	p, ok := s.procs[pid]
	if !s.Monotonic || !ok {
		return all
	}
	var out []int
	for _, c := range all {
		if s.procs[c].StartTime >= p.StartTime {
			out = append(out, c)
		}
	}
	return out
}

// EmptySnapshot is a snapshot of no process: what is listed when the
// table cannot be read.
func EmptySnapshot() *Snapshot { return newSnapshot(nil, false) }
