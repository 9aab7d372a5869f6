package reclaim

import (
	"sort"
	"strings"
	"time"

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

// AllGone reports whether every selected process is gone: the exit
// status 0 of tether reclaim.
func (s Summary) AllGone() bool {
	for _, r := range s.Results {
		if r.Outcome == Survived || r.Outcome == Failed {
			return false
		}
	}
	return true
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
	results := terminateAll(found.procs, f, act)
	if !act.DryRun {
		removeEmptied(results)
	}
	ports := found.ports
	if len(f.Ports) > 0 && !act.DryRun {
		ports = after(unique(f.Ports), found.holders, results)
	}
	return Summary{Results: results, Ports: ports}, nil
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
		if ok, why := f.matches(p); !ok && len(f.Ports) == 0 {
			trace.Printf("ps: %d left out: %s", p.PID, why)
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
			if ok, _ := f.matches(p); !ok && !(r.Verdict == probe.Unverifiable && (f.AnyUser || mine(p))) {
				continue // the matched ones of a container, or the unverifiable
			}
			trace.Printf("ps: %d below supervisor %d is %s: %s", m.PID, sup, r.Verdict, r.Reason)
			out = append(out, p)
		}
	}
	return out
}

// FreePorts makes sure the ports are free before a command that needs
// them starts: a holder that is tethered (under markers, any name) and
// stranded is reclaimed with grace; any other holder (supervised by a
// live tether, foreign, unverifiable, another user's) or a socket whose
// holder cannot be seen is a *[PortRefusal], and then nothing at all is
// signalled. It is the rule behind tether run --port.
func FreePorts(ports []uint16, markers probe.Markers, grace time.Duration) error {
	if len(ports) == 0 {
		return nil
	}
	f := Filter{Markers: markers, Ports: ports}
	found, err := find(f)
	if err != nil {
		return err
	}
	for i, p := range found.procs {
		if ok, why := f.selects(p); !ok {
			// The hints ("--all to include") are reclaim's flags, not run's.
			why, _, _ = strings.Cut(why, "; --")
			return &PortRefusal{Port: p.Ports[0].Port, Holder: &found.procs[i], Why: why}
		}
	}
	// A socket on the port whose holder is out of sight (another user's
	// process) cannot be verified: refuse, fail closed.
	for _, st := range found.ports {
		if len(st.Hidden) > 0 {
			return &PortRefusal{Port: st.Port, HiddenUIDs: st.Hidden}
		}
	}
	for _, r := range terminateAll(found.procs, f, Action{Grace: grace}) {
		if !r.ended() {
			return &PortRefusal{Port: r.Ports[0].Port, Holder: &r.Process, Result: &r}
		}
	}
	return nil
}
