package ptree

import (
	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/procid"
)

// Unique is ms without repeats, in their first order: a member found on
// several grounds is signalled once.
func Unique(ms []procid.ID) []procid.ID {
	seen := make(map[procid.ID]bool, len(ms))
	out := ms[:0]
	for _, m := range ms {
		if !seen[m] {
			seen[m] = true
			out = append(out, m)
		}
	}
	return out
}

// Alive reports whether m is still the process it names, not exited.
func Alive(fs proc.FS, m procid.ID) bool {
	st, err := fs.Stat(m.PID)
	return err == nil && st.StartTime == m.StartTime && !st.Zombie()
}

// Living lists those of ms that are still the processes they name, each
// once: a list of any length (another user's run records name what
// they like) costs one listing of the table and one read of each live
// PID it names, never a read per entry.
func Living(fs proc.FS, ms []procid.ID) []procid.ID {
	if len(ms) == 0 {
		return nil
	}
	pids, err := fs.PIDs()
	if err != nil {
		// No listing: each read on its own, never all taken for gone.
		var out []procid.ID
		for _, m := range Unique(ms) {
			if Alive(fs, m) {
				out = append(out, m)
			}
		}
		return out
	}
	live := make(map[int]bool, len(pids))
	for _, pid := range pids {
		live[pid] = true
	}
	var out []procid.ID
	starts := map[int]uint64{}
	for _, m := range ms {
		if !live[m.PID] {
			continue
		}
		start, ok := starts[m.PID]
		if !ok {
			if st, err := fs.Stat(m.PID); err == nil && !st.Zombie() {
				start = st.StartTime
			}
			starts[m.PID] = start
		}
		if start != 0 && start == m.StartTime {
			out = append(out, m)
			starts[m.PID] = 0 // listed once
		}
	}
	return out
}

// OwnedPIDs lists those of pids whose real uid is uid: of the processes
// a scan found mid-execve, the ones a cleanup may wait for. Anyone can
// make a process that reads as mid-execve, and a stream of young ones
// would keep another user's cleanup from ever settling.
func OwnedPIDs(fs proc.FS, pids []int, uid int) []int {
	var out []int
	for _, pid := range pids {
		if st, err := fs.Status(pid); err == nil && st.UID == uid {
			out = append(out, pid)
		}
	}
	return out
}
