//go:build linux

package ptree

import (
	"github.com/tetherproc/tether/internal/proc"
)

// ReadSnapshot reads the stat file of every process once. The user is not
// in a stat file: UID is -1 (unknown).
func ReadSnapshot(fs proc.FS) (*Snapshot, error) {
	pids, err := fs.PIDs()
	if err != nil {
		return nil, err
	}
	procs := make([]proc.Process, 0, len(pids))
	for _, pid := range pids {
		if st, err := fs.Stat(pid); err == nil {
			procs = append(procs, processOf(st))
		}
	}
	return newSnapshot(procs, true), nil
}

// processOf is what a stat file tells of a process.
func processOf(st proc.Stat) proc.Process {
	return proc.Process{
		PID: st.PID, PPID: st.PPID, PGID: st.PGID, Session: st.Session, UID: -1,
		StartTime: st.StartTime, Zombie: st.Zombie(), KernelThread: st.KernelThread(), Comm: st.Comm,
	}
}
