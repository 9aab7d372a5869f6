package reclaim

import (
	"slices"

	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/trace"
	"github.com/tetherproc/tether/probe"
)

// wholeRuns adds to procs every other member of each run f selects a
// process of: a stranded run is ended whole, not only the process that
// matched (the holder of a port, say, while its helper stays). A run's
// members are found by every ground there is: its run id in their
// environment, its record (renamed ones), its cgroup (contained ones).
// A supervised run ended through its supervisor (throughSupervisor) is
// left to that tether, which ends its own tree; one whose supervisor may
// not be (a program's Host, a forgery) is ended whole here. It also returns the
// groups of the runs it found, to be removed once emptied.
//
// A run id is no proof of anything across users: anyone who learnt one
// can carry it. So a selected process draws in only the members of its
// own real uid, and a process of root's (which no one else can start)
// those of every uid: another user's copy of a run id never widens root's
// selection to the run it names.
func wholeRuns(procs []Process, f Filter, act Action) ([]Process, []string) {
	runs := map[string][]string{}       // run id: its cgroups
	owners := map[string]map[int]bool{} // run id: the uids of its selected processes
	for i, p := range procs {
		if reason, _ := f.selects(p); reason != "" || p.RunID == "" || p.UID == nil {
			continue
		}
		if procs[i].through = throughSupervisor(p, act); procs[i].through {
			continue
		}
		runs[p.RunID] = append(runs[p.RunID], p.Container, runGroupOf(p.PID, p.RunID))
		if owners[p.RunID] == nil {
			owners[p.RunID] = map[int]bool{}
		}
		owners[p.RunID][*p.UID] = true
	}
	if len(runs) == 0 {
		return procs, nil
	}
	have := map[int]bool{}
	for _, p := range procs {
		have[p.PID] = true
	}
	recs := records(f)
	protected := protectedPIDs()
	fs := proc.Host()
	var groups []string
	for id, containers := range runs {
		ms, _ := fs.Scan([]string{probe.RunIDVar + "=" + id})
		for _, rec := range recs {
			if rec.RunID != id {
				continue
			}
			// The record's cgroup is not taken: a user's record could
			// name any directory. A run's groups are those /proc says
			// its members are in.
			for _, m := range rec.Members {
				ms = append(ms, proc.Member(m))
			}
		}
		ms = append(ms, cgroupMembers(containers)...)
		groups = append(groups, containers...)
		for _, m := range ms {
			if have[m.PID] {
				continue
			}
			have[m.PID] = true
			pid := m.PID
			ident := fs.Identity(pid)
			r, err := probe.Check(pid, f.query())
			if err != nil || r.RunID != id || !r.Tethered {
				continue
			}
			if m.StartTime != 0 && r.StartTime != m.StartTime {
				continue // a record's member whose PID is another's now
			}
			if r.UID == nil || !owners[id][0] && !owners[id][*r.UID] {
				trace.Printf("reclaim: %d carries run %s but is another user's than its selected processes: left alone", pid, id)
				continue
			}
			trace.Printf("reclaim: %d is of run %s too: ended with it", pid, id)
			groups = append(groups, runGroupOf(pid, id))
			procs = append(procs, Process{Report: r, Protected: protected[pid], identity: ident, ofRun: true})
		}
	}
	slices.SortFunc(procs, func(a, b Process) int { return a.PID - b.PID })
	return procs, groups
}
