package reclaim

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"sync"
	"syscall"
	"time"

	"github.com/tetherproc/tether/probe"
)

// Options select tethered processes.
type Options struct {
	// Markers and Name are matched as probe does.
	Markers probe.Markers
	Name    string
	// Ports narrows the selection to the holders of these ports (TCP
	// listening or UDP bound, IPv4 or IPv6).
	Ports []uint16
	// RunID narrows the selection to one run.
	RunID string
	// All selects supervised processes too; by default only stranded
	// ones are.
	All bool
	// AnyUser widens the search to every user's processes.
	AnyUser bool
}

// Validate reports a bad option, naming the value.
func (o Options) Validate() error {
	if err := (probe.Options{Markers: o.Markers, Name: o.Name}).Validate(); err != nil {
		return err
	}
	if o.RunID != "" {
		if err := probe.ValidateRunID(o.RunID); err != nil {
			return err
		}
	}
	for _, p := range o.Ports {
		if p == 0 {
			return errors.New("invalid port \"0\": must be 1-65535")
		}
	}
	return nil
}

// Process is one process found: a tethered process, or any holder of a
// port that was asked about.
type Process struct {
	probe.Report
	// Ports are the listeners it holds: of the ports asked about, or all
	// of them when listing.
	Ports []Listener `json:"ports,omitempty"`
	// Protected says why it is never signalled: PID 1, tether itself or
	// one of its ancestors.
	Protected string `json:"protected,omitempty"`
	// identity tells this process apart from any later holder of its PID
	// where the kernel can (pidfs inode numbers); 0 elsewhere.
	identity uint64
}

// Selected reports whether opts select p for termination, and if not, why.
func (o Options) Selected(p Process) (bool, string) {
	uid := os.Getuid()
	switch {
	case p.Protected != "":
		return false, p.Protected
	case !p.Tethered:
		return false, string(p.Verdict) + ": " + p.Reason
	case o.RunID != "" && p.RunID != o.RunID:
		return false, fmt.Sprintf("another run (%s)", p.RunID)
	case !o.AnyUser && p.UID != nil && *p.UID != uid:
		return false, fmt.Sprintf("another user's (uid %d); --any-user to include", *p.UID)
	case p.Verdict == probe.Supervised && !o.All:
		return false, "supervised" + supervisorNote(p) + "; --all to include"
	}
	return true, ""
}

func supervisorNote(p Process) string {
	if s := p.Supervisor; s != nil {
		return fmt.Sprintf(" by %d (%s)", s.PID, s.State)
	}
	return fmt.Sprintf(" (parent %d)", p.PPID)
}

// Find returns the processes opts are about, each freshly checked, by
// PID: the tethered ones that match the name, run id and user; with Ports,
// every holder of those ports instead, tethered or not, so that a caller
// can say who holds a port it will not touch.
func Find(opts Options) ([]Process, error) {
	found, _, err := FindWithPorts(opts)
	return found, err
}

// FindWithPorts is Find that also says, from the same lookup, what serves
// each port of opts.Ports (nil without ports): one walk of the fd tables
// answers both.
func FindWithPorts(opts Options) ([]Process, []PortState, error) {
	if err := opts.Validate(); err != nil {
		return nil, nil, err
	}
	var pids []int
	var states []PortState
	ports := map[int][]Listener{}
	if len(opts.Ports) > 0 {
		ls, hs, err := lookupPorts(opts.Ports)
		if err != nil {
			return nil, nil, err
		}
		states = portStates(opts.Ports, ls, hs)
		for _, h := range hs {
			if _, ok := ports[h.PID]; !ok {
				pids = append(pids, h.PID)
			}
			ports[h.PID] = append(ports[h.PID], h.Listener)
		}
	} else {
		pids = scanTethered(opts.Markers, opts.Name, opts.AnyUser)
	}
	protected := protectedPIDs()
	var out []Process
	for _, pid := range pids {
		// Taken before the check, so that the check describes the
		// process the identity names (or sees a different start time).
		id := processIdentity(pid)
		r, err := probe.Check(pid, probe.Options{Markers: opts.Markers, Name: opts.Name})
		if err != nil {
			return nil, nil, err
		}
		if len(opts.Ports) == 0 && (!r.Tethered || (opts.RunID != "" && r.RunID != opts.RunID)) {
			continue // changed since the scan, or another run
		}
		p := Process{Report: r, Ports: ports[pid], Protected: protected[pid], identity: id}
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].PID < out[j].PID })
	return out, states, nil
}

// protectedPIDs are never signalled: PID 1, this process and its
// ancestors (killing the shell that runs tether reclaim helps no one).
func protectedPIDs() map[int]string {
	prot := map[int]string{1: "PID 1 is never signalled"}
	self := os.Getpid()
	prot[self] = "tether itself"
	for pid, n := os.Getppid(), 0; pid > 1 && n < 4096; n++ {
		prot[pid] = "an ancestor of tether"
		p, err := probe.ReadProcess(pid)
		if err != nil {
			break
		}
		pid = p.PPID
	}
	return prot
}

// Action says how selected processes are terminated.
type Action struct {
	// Signal is sent first; default SIGTERM.
	Signal syscall.Signal
	// Grace is how long a process gets to exit before SIGKILL.
	Grace time.Duration
	// DryRun signals nothing.
	DryRun bool
}

// Outcome is what became of one process.
type Outcome string

// The outcomes. Survived and Failed make tether reclaim exit 1.
const (
	Skipped     Outcome = "skipped"      // not selected; see Result.Why
	WouldSignal Outcome = "would-signal" // selected, and this is a dry run
	Exited      Outcome = "gone"         // signalled, and it exited
	AlreadyGone Outcome = "already-gone" // it exited before it was signalled
	Changed     Outcome = "changed"      // no longer what was selected (PID recycled, supervisor back): not signalled
	Survived    Outcome = "survived"     // still alive after KILL
	Failed      Outcome = "failed"       // could not be signalled; see Result.Why
)

// Result is one process and what was done to it.
type Result struct {
	Process
	Selected bool     `json:"selected"`
	Outcome  Outcome  `json:"outcome"`
	Why      string   `json:"why,omitempty"`
	Signals  []string `json:"signals,omitempty"`
}

// Terminated reports whether every selected process is gone.
func Terminated(rs []Result) bool {
	for _, r := range rs {
		if r.Outcome == Survived || r.Outcome == Failed {
			return false
		}
	}
	return true
}

// Reclaim finds what opts select and terminates it; see Terminate.
func Reclaim(opts Options, act Action) ([]Result, error) {
	found, err := Find(opts)
	if err != nil {
		return nil, err
	}
	return Terminate(found, opts, act), nil
}

// Terminate terminates the processes of found that opts select: Signal
// through a pidfd opened before the identity is checked again, up to
// Grace for it to exit, then SIGKILL, and waits until it is gone.
// Processes are terminated side by side, so the whole takes about one
// Grace. Those not selected are reported as Skipped, with the reason.
func Terminate(found []Process, opts Options, act Action) []Result {
	if act.Signal == 0 {
		act.Signal = syscall.SIGTERM
	}
	results := make([]Result, len(found))
	var wg sync.WaitGroup
	for i, p := range found {
		ok, why := opts.Selected(p)
		results[i] = Result{Process: p, Selected: ok, Outcome: Skipped, Why: why}
		if !ok {
			continue
		}
		if act.DryRun {
			results[i].Outcome = WouldSignal
			continue
		}
		wg.Add(1)
		go func(r *Result) {
			defer wg.Done()
			terminate(r, opts, act)
		}(&results[i])
	}
	wg.Wait()
	return results
}

// recheck is the check made through an open pidfd right before the
// signal: the same process (start time), still tethered under the same
// name and run, still selected. It returns "" when the process may be
// signalled, else the outcome to report (AlreadyGone or Changed) and why.
func recheck(p Process, opts Options) (Outcome, string) {
	r, err := probe.Check(p.PID, probe.Options{Markers: opts.Markers, Name: opts.Name})
	switch {
	case err != nil:
		return Changed, err.Error()
	case r.Verdict == probe.Gone || r.Verdict == probe.Zombie:
		return AlreadyGone, ""
	case r.StartTime != p.StartTime:
		return Changed, fmt.Sprintf("PID %d now belongs to another process (start time %d, was %d)", p.PID, r.StartTime, p.StartTime)
	}
	if ok, why := opts.Selected(Process{Report: r, Protected: p.Protected}); !ok {
		return Changed, "no longer selected: " + why
	}
	return "", ""
}

// List returns the tethered processes opts are about (supervised and
// stranded alike; All is ignored), each with every listener it holds.
func List(opts Options) ([]Process, error) {
	found, err := Find(opts)
	if err != nil {
		return nil, err
	}
	ls, err := listeners(nil)
	if err != nil {
		ls = nil // ports are shown where the platform has them
	}
	out := found[:0]
	for _, p := range found {
		if !p.Tethered {
			continue // a foreign holder of an asked port
		}
		if opts.RunID != "" && p.RunID != opts.RunID {
			continue
		}
		if !opts.AnyUser && p.UID != nil && *p.UID != os.Getuid() {
			continue
		}
		p.Ports = listenersOf(p.PID, ls)
		out = append(out, p)
	}
	return out, nil
}
