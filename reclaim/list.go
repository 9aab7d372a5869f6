package reclaim

import (
	"sort"

	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/ptree"
	"github.com/tetherproc/tether/internal/sockets"
	"github.com/tetherproc/tether/internal/trace"
	"github.com/tetherproc/tether/probe"
)

// List returns the tethered processes f is about, supervised and
// stranded alike (f.All is not needed), each with every listener it
// holds, for tether ps. With f.Ports it returns every holder of the
// ports instead, whoever it is, with its verdict: the answer to "who
// holds it, and is it ours?"; another user's holders (without
// f.AnyUser) and those out of sight are in Others.
func List(f Filter) (Listing, error) {
	s, err := take(f, false, false)
	if err != nil {
		return Listing{}, err
	}
	var l Listing
	out := s.procs[:0]
	for _, p := range s.procs {
		if reason := f.matches(p); reason != "" && len(f.Ports) == 0 {
			trace.Printf("ps: %d left out: %s", p.PID, reason)
			continue
		}
		if len(f.Ports) > 0 && !f.AnyUser && !mine(p) {
			// A port's holders are anyone's, but the listing is of the
			// caller's processes, as without --port.
			trace.Printf("ps: %d left out: another user's (uid %d)", p.PID, *p.UID)
			for _, ls := range p.Ports {
				l.Others = append(l.Others, OtherHolder{Port: ls.Port, PID: p.PID, UID: *p.UID, Excluded: OtherUser})
			}
			continue
		}
		out = append(out, p)
	}
	for _, st := range s.ports {
		for _, uid := range st.Hidden {
			l.Others = append(l.Others, OtherHolder{Port: st.Port, UID: uid, Excluded: OutOfSight})
		}
	}
	out = append(out, hiddenDescendants(out, f)...)
	sort.Slice(out, func(i, j int) bool { return out[i].PID < out[j].PID })
	withPorts(out)
	l.Processes = out
	return l, nil
}

// withPorts sets each process's Ports to every listener it holds, of any
// port, reading only those processes' fd tables. Ports are shown where
// the platform has them.
func withPorts(procs []Process) {
	pids := make([]int, 0, len(procs))
	for _, p := range procs {
		pids = append(pids, p.PID)
	}
	var hs []sockets.Holder
	ls, err := sockets.Listeners()
	if err == nil {
		hs, err = sockets.HoldersAmong(ls, pids)
	}
	if err != nil {
		trace.Printf("ps: ports not shown: %v", err)
	}
	for i := range procs {
		procs[i].Ports = nil
		for _, h := range hs {
			if h.PID == procs[i].PID {
				procs[i].Ports = append(procs[i].Ports, h.Listener)
			}
		}
	}
}

// hiddenDescendants are the processes below the live supervisors of
// listed ones that no scan of environments finds: those that wrote their
// title over their environment or cleared it. A listing shows them so
// that they are not lost from sight: tethered where a container says
// whose they are, unverifiable otherwise (and then never selected for a
// signal).
func hiddenDescendants(listed []Process, f Filter) []Process {
	have := map[int]bool{}
	sups := map[int]bool{}
	for _, p := range listed {
		have[p.PID] = true
		if sv := p.Supervisor; sv != nil && sv.State == probe.SupervisorAlive {
			sups[sv.LocalPID()] = true
		}
	}
	var out []Process
	for sup := range sups {
		for _, m := range ptree.Subtree(proc.Host(), sup, 0) {
			if have[m.PID] {
				continue
			}
			have[m.PID] = true
			r, err := probe.Check(m.PID, f.query())
			if err != nil {
				continue
			}
			p := Process{Report: r}
			if reason := f.matches(p); reason != "" && !(r.Verdict == probe.Unverifiable && (f.AnyUser || mine(p))) {
				continue // the matched ones of a container, or the unverifiable
			}
			trace.Printf("ps: %d below supervisor %d is %s: %s", m.PID, sup, r.Verdict, r.Why.Kind)
			out = append(out, p)
		}
	}
	return out
}
