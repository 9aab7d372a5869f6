package reclaim

import (
	"errors"
	"fmt"
	"sync"
	"syscall"
	"time"

	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/trace"
	"github.com/tetherproc/tether/probe"
)

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
	Gone        Outcome = "gone"         // signalled, and it exited
	AlreadyGone Outcome = "already-gone" // it exited before it was signalled
	Changed     Outcome = "changed"      // no longer what was selected (PID recycled, supervisor back): not signalled
	Survived    Outcome = "survived"     // still alive after KILL
	Failed      Outcome = "failed"       // could not be signalled; see Result.Why
)

// Result is one process and what was done to it.
type Result struct {
	Process
	Selected bool     `json:"selected"`          // the filter selected it for termination
	Outcome  Outcome  `json:"outcome"`           // what became of it
	Why      string   `json:"why,omitempty"`     // why it was skipped, changed, failed or survived
	Signals  []string `json:"signals,omitempty"` // the signals sent, in order: TERM, KILL
}

// ended reports whether the process is gone, by tether's hand or its own.
func (r Result) ended() bool { return r.Outcome == Gone || r.Outcome == AlreadyGone }

// terminateAll terminates the processes that f selects, side by side, so
// that the whole takes about one Grace. Those not selected are reported
// as Skipped, with the reason.
func terminateAll(procs []Process, f Filter, act Action) []Result {
	if act.Signal == 0 {
		act.Signal = syscall.SIGTERM
	}
	results := make([]Result, len(procs))
	var wg sync.WaitGroup
	for i, p := range procs {
		ok, why := f.selects(p)
		results[i] = Result{Process: p, Selected: ok, Outcome: Skipped, Why: why}
		switch {
		case !ok:
			trace.Printf("reclaim: %d skipped: %s", p.PID, why)
		case act.DryRun:
			results[i].Outcome = WouldSignal
			trace.Printf("reclaim: %d selected (%s); dry run", p.PID, p.Verdict)
		default:
			trace.Printf("reclaim: %d selected (%s)", p.PID, p.Verdict)
			wg.Add(1)
			go func(r *Result) {
				defer wg.Done()
				terminate(r, f, act)
			}(&results[i])
		}
	}
	wg.Wait()
	return results
}

// terminate signals r's process through a handle opened before its
// identity is checked again, so that a PID recycled since it was found is
// never signalled: the new process fails the check, and a signal through
// the old handle cannot reach it. Then the one escalation of tether:
// Signal, Grace, SIGKILL.
func terminate(r *Result, f Filter, act Action) {
	h, err := proc.Host().Open(r.PID)
	if errors.Is(err, proc.ErrGone) {
		r.Outcome = AlreadyGone
		return
	}
	if err != nil {
		r.Outcome, r.Why = Failed, err.Error()
		return
	}
	defer h.Close()
	if id := h.Identity(); r.identity != 0 && id != r.identity {
		r.Outcome, r.Why = Changed, fmt.Sprintf("PID %d now belongs to another process (pidfs inode %d, was %d)", r.PID, id, r.identity)
		return
	}
	if outcome, why := recheck(r.Process, f); outcome != "" {
		r.Outcome, r.Why = outcome, why
		trace.Printf("reclaim: %d not signalled: %s %s", r.PID, outcome, why)
		return
	}
	var sendErr error
	self := proc.Member{PID: r.PID, StartTime: r.StartTime}
	ended := proc.Escalation{
		Signal: act.Signal,
		Grace:  act.Grace,
		List: func() ([]proc.Member, bool) {
			if sendErr != nil || h.Wait(time.Now()) {
				return nil, false
			}
			return []proc.Member{self}, false
		},
		Send: func(_ proc.Member, sig syscall.Signal) error {
			err := h.Signal(sig)
			switch {
			case err == nil:
				r.Signals = append(r.Signals, proc.SignalName(sig))
			case !errors.Is(err, proc.ErrGone):
				sendErr = err
			}
			return err
		},
		Wait: func(deadline time.Time) { h.Wait(deadline) },
		What: fmt.Sprintf("reclaim of %d", r.PID),
	}.Run()
	switch {
	case sendErr != nil:
		r.Outcome, r.Why = Failed, sendErr.Error()
	case ended && len(r.Signals) == 0:
		r.Outcome = AlreadyGone
	case ended:
		r.Outcome = Gone
	default:
		r.Outcome, r.Why = Survived, fmt.Sprintf("still alive %v after SIGKILL", proc.KillWait)
	}
}

// recheck is the check made through an open handle right before the
// signal: the same process (start time), still tethered under the same
// name and run, still selected. It returns "" when the process may be
// signalled, else the outcome to report (AlreadyGone or Changed) and why.
func recheck(p Process, f Filter) (Outcome, string) {
	r, err := probe.Check(p.PID, f.query())
	switch {
	case err != nil:
		return Changed, err.Error()
	case r.Verdict == probe.Gone || r.Verdict == probe.Zombie:
		return AlreadyGone, ""
	case r.StartTime != p.StartTime:
		return Changed, fmt.Sprintf("PID %d now belongs to another process (start time %d, was %d)", p.PID, r.StartTime, p.StartTime)
	}
	if ok, why := f.selects(Process{Report: r, Protected: p.Protected}); !ok {
		return Changed, "no longer selected: " + why
	}
	return "", ""
}
