package reclaim

import (
	"slices"

	"github.com/tetherproc/tether/internal/trace"
	"github.com/tetherproc/tether/probe"
	"github.com/tetherproc/tether/procid"
)

// selection is the one selection of a reclaim: every process of the
// snapshot decided once — selected, or skipped and why — and the runs
// of the selected ones made whole. It returns the results to act on, by
// PID, each selected one still to be signalled, and the cgroups of the
// runs found, to be removed once emptied.
func (s *snapshot) selection(f Filter, act Action) ([]Result, []string) {
	results := make([]Result, len(s.procs))
	for i, p := range s.procs {
		results[i] = s.decide(p, f, act)
	}
	return s.wholeRuns(results, f)
}

// decide is the selection of one process: whether f selects it, and if
// so, whether it is to be ended through its supervisor.
func (s *snapshot) decide(p Process, f Filter, act Action) Result {
	reason := f.selects(p)
	r := Result{Process: p, Selected: reason == "", Outcome: Skipped, Excluded: reason}
	if r.Selected {
		r.through = s.throughSupervisor(p, act)
	}
	return r
}

// run is one run that a selected process makes whole: the groups it was
// found by, and the uids of its selected processes.
type run struct {
	groups []string
	owners map[int]bool
}

// wholeRuns adds to results every other member of each run a selected
// process is of: a stranded run is ended whole, not only the process
// that matched (the holder of a port, say, while its helper stays). A
// run's members are found by every ground there is: its run id in their
// environment (the snapshot's scan), its record (renamed ones), its
// cgroup (contained ones). A supervised run ended through its supervisor
// is left to that tether, which ends its own tree; one whose supervisor
// may not be (a program's Host, a forgery) is ended whole here. It also
// returns the groups of the runs it found, to be removed once emptied.
//
// A run id is no proof of anything across users: anyone who learnt one
// can carry it. So a selected process draws in only the members of its
// own real uid, and a process of root's (which no one else can start)
// those of every uid: another user's copy of a run id never widens root's
// selection to the run it names.
func (s *snapshot) wholeRuns(results []Result, f Filter) ([]Result, []string) {
	runs := map[string]*run{}
	for _, r := range results {
		if !r.Selected || r.through || r.RunID == "" || r.UID == nil {
			continue
		}
		if runs[r.RunID] == nil {
			runs[r.RunID] = &run{owners: map[int]bool{}}
		}
		if c := r.Container; c != nil && c.Kind == probe.InCgroup {
			runs[r.RunID].groups = append(runs[r.RunID].groups, c.Cgroup)
		}
		runs[r.RunID].groups = append(runs[r.RunID].groups, runGroupOf(r.PID, r.RunID))
		runs[r.RunID].owners[*r.UID] = true
	}
	if len(runs) == 0 {
		return results, nil
	}
	have := map[int]bool{}
	for _, r := range results {
		have[r.PID] = true
	}
	var groups []string
	for id, rn := range runs {
		groups = append(groups, rn.groups...)
		for _, m := range s.runMembers(id, rn) {
			if have[m.PID] {
				continue
			}
			have[m.PID] = true
			if p, ok := s.member(m, id, rn, f); ok {
				groups = append(groups, runGroupOf(m.PID, id))
				results = append(results, s.decide(p, f, Action{}))
			}
		}
	}
	slices.SortFunc(results, func(a, b Result) int { return a.PID - b.PID })
	return results, groups
}

// runMembers are the processes that may be members of run id, by every
// ground: the snapshot's marked processes of the run, its record's
// members, its cgroups' members.
func (s *snapshot) runMembers(id string, rn *run) []procid.ID {
	ms := slices.Clone(s.runsOf(id))
	// The record's cgroup is not taken: a user's record could name any
	// directory. A run's groups are those /proc says its members are in.
	ms = append(ms, s.records.members(id)...)
	return append(ms, cgroupMembers(rn.groups)...)
}

// member checks m, found as a possible member of run id, and returns it
// as a process of the run when it is one: tethered, of run id, the same
// process that was found (start time), and of a uid the run's selected
// processes may draw in.
func (s *snapshot) member(m procid.ID, id string, rn *run, f Filter) (Process, bool) {
	p, err := s.check(m.PID, f)
	switch {
	case err != nil || p.RunID != id || !p.Tethered:
		return p, false
	case m.StartTime != 0 && p.StartTime != m.StartTime:
		return p, false // a record's member whose PID is another's now
	case p.UID == nil || !rn.owners[0] && !rn.owners[*p.UID]:
		trace.Printf("reclaim: %d carries run %s but is another user's than its selected processes: left alone", m.PID, id)
		return p, false
	}
	trace.Printf("reclaim: %d is of run %s too: ended with it", m.PID, id)
	p.ofRun = true
	return p, true
}

// supervisorPID is the PID, as this /proc numbers it, of the live
// supervisor p's markers name; false when there is none, or it is never
// to be signalled.
func (s *snapshot) supervisorPID(p Process) (int, bool) {
	sup := p.Supervisor
	if sup == nil || sup.State != probe.SupervisorAlive {
		return 0, false
	}
	pid := sup.LocalPID()
	if why := s.protected[pid]; why != "" {
		// tether itself or one of its ancestors (a run --replace from
		// inside the run it would replace): never signalled, so the
		// holder is signalled itself.
		trace.Printf("reclaim: supervisor %d of %d is %s: the holder is signalled itself", pid, p.PID, why)
		return 0, false
	}
	return pid, true
}
