package reclaim

import (
	"fmt"

	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/probe"
	"github.com/tetherproc/tether/procid"
)

// throughSupervisor reports whether p, a supervised process, is to be
// ended through its supervisor: the tether run that owns it, which ends
// its whole run. Otherwise p is signalled itself, and its run is ended
// whole as a stranded one is (wholeRuns).
func (s *snapshot) throughSupervisor(p Process, act Action) bool {
	if !act.ViaSupervisor || p.Verdict != probe.Supervised {
		return false
	}
	pid, ok := s.supervisorPID(p)
	return ok && s.notThrough(p, pid) == ""
}

// notThrough says why supervisor pid is not to be signalled in p's
// place, "" when it is: it must still be the process p's markers name
// (start time), and the tether run that owns p (notItsTether).
func (s *snapshot) notThrough(p Process, pid int) string {
	if st, err := proc.Host().Stat(pid); err != nil || st.StartTime != p.Supervisor.StartTime || st.Zombie() {
		return "is no longer the process the markers name"
	}
	return s.notItsTether(p, pid)
}

// notItsTether says why the supervisor pid that p's markers name is not
// to be signalled in its place, "" when it is. Markers, run ids and
// start times are anyone's to copy, so the markers prove nothing: only
// the supervisor's own record does. It must be a tether run's (a
// program's Host or Supervise is the program, which a TERM would end with
// every other run it holds), name the supervisor by PID and start time,
// hold p's run id, list p itself by PID and start time, and be a record
// that may name p: its owner's is p's real uid, or it is root's. A
// supervisor that stamped its caller's process in place, or the calling
// program (spawn.Start), writes none, and a run too young for its first
// record has not yet: those, and every forgery, have the process itself
// signalled, never the supervisor.
func (s *snapshot) notItsTether(p Process, pid int) string {
	if p.RunID == "" {
		return "is named by no run id"
	}
	if p.UID == nil {
		return "cannot be told the owner of: the process's uid is unknown"
	}
	st, err := proc.Host().Status(pid)
	if err != nil {
		return "cannot be read: " + err.Error()
	}
	m := procid.ID{PID: p.PID, StartTime: p.StartTime}
	for _, rec := range s.records.of(st.UID) {
		if rec.RunID != p.RunID || rec.Supervisor.PID != pid || rec.Supervisor.StartTime != p.Supervisor.StartTime {
			continue
		}
		switch {
		case !rec.Forwards:
			return "is the program that started run " + p.RunID + ", not a tether run of its own"
		case !rec.InNamespace(s.records.ns):
			return "wrote run " + p.RunID + "'s record in another PID namespace"
		case !rec.Honours(*p.UID):
			return fmt.Sprintf("is uid %d's and the process uid %d's: its run's record cannot name it", rec.Owner, *p.UID)
		case !rec.Has(m):
			return fmt.Sprintf("does not list %d in run %s's record (not its member, or not yet)", p.PID, p.RunID)
		}
		return ""
	}
	return "wrote no record of run " + p.RunID + " (not a tether run, or not yet)"
}
