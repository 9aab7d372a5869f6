package reclaim

import (
	"fmt"
	"sort"

	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/trace"
	"github.com/tetherproc/tether/probe"
)

// Summary is what one reclaim did: every process found, with what became
// of it, and with Ports, what serves each port afterwards.
type Summary struct {
	Results []Result    `json:"results"`         // every process found, by PID
	Ports   []PortState `json:"ports,omitempty"` // with Filter.Ports: each port after the reclaim
}

// AllGone reports whether every selected process is gone: with
// [Summary.PortsFree], the exit status 0 of tether reclaim.
func (s Summary) AllGone() bool {
	for _, r := range s.Results {
		if r.Outcome == Survived || r.Outcome == Failed {
			return false
		}
	}
	return true
}

// PortsFree reports whether every port asked about is free after the
// reclaim; after a dry run, whether it would be: every holder of every
// port would be signalled, and none is out of sight.
func (s Summary) PortsFree() bool {
	for _, st := range s.Ports {
		if !st.Free && (len(st.Left) > 0 || len(st.Hidden) > 0) {
			return false
		}
	}
	return true
}

// result is the result for pid, and whether there is one.
func (s Summary) result(pid int) (Result, bool) {
	for _, r := range s.Results {
		if r.PID == pid {
			return r, true
		}
	}
	return Result{}, false
}

// Reclaim finds the processes f is about and terminates those it
// selects, in one pass: find, verify, signal, report. Each one is
// signalled through a handle opened before its identity is checked again
// (a pidfd on Linux), gets act.Grace to exit, then SIGKILL. With
// f.Ports, every holder of the ports is reported, the ones not selected
// as [Skipped] with the reason, and the port states are carried past the
// signals. The error is for bad input and an unreadable socket table.
func Reclaim(f Filter, act Action) (Summary, error) {
	found, err := find(f)
	if err != nil {
		return Summary{}, err
	}
	var groups []string
	found.procs, groups = wholeRuns(found.procs, f, act)
	results := terminateAll(found.procs, f, act)
	if !act.DryRun {
		removeEmptied(results, groups)
		pruneOver(f)
	}
	sum := Summary{Results: results, Ports: found.ports}
	if len(f.Ports) > 0 && !act.DryRun {
		sum.Ports = after(unique(f.Ports), found.holders, results)
	}
	sum.ExplainLeft()
	return sum, nil
}

// ExplainLeft names, for each port still held (or that a dry run would
// leave held), each holder left and why (its [Result.Why]): what a caller
// asked to free a port needs to know to free it. Reclaim calls it; a
// caller that words the results' Why anew (with its own hints) calls it
// again.
func (s Summary) ExplainLeft() {
	for i := range s.Ports {
		st := &s.Ports[i]
		st.Left = nil
		if st.Free {
			continue
		}
		for _, pid := range st.Holders {
			r, ok := s.result(pid)
			switch {
			case !ok:
				st.Left = append(st.Left, fmt.Sprintf("PID %d: bound the port while tether looked", pid))
			case r.Outcome == WouldSignal:
			case r.Selected:
				st.Left = append(st.Left, fmt.Sprintf("PID %d: %s %s", pid, r.Outcome, r.Why))
			default:
				st.Left = append(st.Left, fmt.Sprintf("PID %d: %s", pid, r.Why))
			}
		}
		for _, uid := range st.Hidden {
			st.Left = append(st.Left, fmt.Sprintf("a process of uid %d that tether cannot see", uid))
		}
	}
}

// List returns the tethered processes f is about, supervised and
// stranded alike (f.All is not needed), each with every listener it
// holds, for tether ps. With f.Ports it returns every holder of the
// ports instead, whoever it is, with its verdict: the answer to "who
// holds it, and is it ours?".
func List(f Filter) ([]Process, error) {
	found, err := find(f)
	if err != nil {
		return nil, err
	}
	ls, err := listeners(nil)
	if err != nil {
		ls = nil // ports are shown where the platform has them
	}
	out := found.procs[:0]
	for _, p := range found.procs {
		if reason, why := f.matches(p); reason != "" && len(f.Ports) == 0 {
			trace.Printf("ps: %d left out: %s", p.PID, why)
			continue
		}
		if len(f.Ports) > 0 && !f.AnyUser && !mine(p) {
			// A port's holders are anyone's, but the listing is of the
			// caller's processes, as without --port.
			trace.Printf("ps: %d left out: another user's (uid %d)", p.PID, *p.UID)
			continue
		}
		out = append(out, p)
	}
	out = append(out, hiddenDescendants(out, f)...)
	sort.Slice(out, func(i, j int) bool { return out[i].PID < out[j].PID })
	// Only the listed processes' fd tables are read; never nil, which
	// would mean every process's.
	pids := make([]int, 0, len(out))
	for _, p := range out {
		pids = append(pids, p.PID)
	}
	hs, err := holders(ls, pids)
	if err != nil {
		trace.Printf("ps: ports not shown: %v", err)
	}
	for i := range out {
		out[i].Ports = nil
		for _, h := range hs {
			if h.pid == out[i].PID {
				out[i].Ports = append(out[i].Ports, h.listener)
			}
		}
	}
	return out, nil
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
		if s := p.Supervisor; s != nil && s.State == probe.SupervisorAlive {
			host := s.PID
			if s.HostPID != 0 {
				host = s.HostPID // as this /proc numbers it
			}
			sups[host] = true
		}
	}
	var out []Process
	for sup := range sups {
		for _, m := range proc.Host().Subtree(sup, 0) {
			if have[m.PID] {
				continue
			}
			have[m.PID] = true
			r, err := probe.Check(m.PID, f.query())
			if err != nil {
				continue
			}
			p := Process{Report: r}
			if reason, _ := f.matches(p); reason != "" && !(r.Verdict == probe.Unverifiable && (f.AnyUser || mine(p))) {
				continue // the matched ones of a container, or the unverifiable
			}
			trace.Printf("ps: %d below supervisor %d is %s: %s", m.PID, sup, r.Verdict, r.Reason)
			out = append(out, p)
		}
	}
	return out
}

// FreePorts frees the ports of f before a command that needs them
// starts, as tether reclaim --port would: every holder f selects is
// ended (a stranded tethered one; with f.All a supervised one, through
// its supervisor with act.ViaSupervisor; with f.Foreign one tether did
// not start), then the ports are looked up again. A port still held is a
// *[PortRefusal] naming what holds it and why it was left. It is the rule
// behind tether run --port.
func FreePorts(f Filter, act Action) error {
	if len(f.Ports) == 0 {
		return nil
	}
	act.DryRun = false
	sum, err := Reclaim(f, act)
	if err != nil {
		return err
	}
	signalled := 0
	for _, r := range sum.Results {
		if len(r.Signals) > 0 {
			signalled++
		}
	}
	for _, st := range sum.Ports {
		if st.Free {
			continue
		}
		e := &PortRefusal{Port: st.Port, HiddenUIDs: st.Hidden, Signalled: signalled}
		for _, pid := range st.Holders {
			if r, ok := sum.result(pid); ok {
				e.Holder, e.Why, e.Reason = &r.Process, r.Why, r.Reason
				if r.Selected {
					e.Result = &r
				}
				break
			}
		}
		return e
	}
	return nil
}
