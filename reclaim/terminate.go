package reclaim

import (
	"context"
	"errors"
	"syscall"
	"time"

	"github.com/tetherproc/tether/internal/engines"
	"github.com/tetherproc/tether/internal/kill"
	"github.com/tetherproc/tether/internal/pidfd"
	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/runtree"
	"github.com/tetherproc/tether/internal/signame"
	"github.com/tetherproc/tether/internal/trace"
	"github.com/tetherproc/tether/procid"
)

// terminateAll terminates the selected results, side by side, so that
// the whole takes about one Grace: each is held by a handle and checked
// again through it before its first signal. The others stay Skipped;
// with act.DryRun, the selected ones are WouldSignal and nothing is
// opened.
func (s *snapshot) terminateAll(ctx context.Context, results []Result, f Filter, act Action) {
	var set []*target
	var held []*Result // by a container, stopped through its engine
	for i := range results {
		r := &results[i]
		switch {
		case !r.Selected:
			trace.Printf("reclaim: %d skipped: %s", r.PID, r.Excluded)
		case act.DryRun && r.Manager != nil && r.Manager.Kind == engines.Container:
			// The dry run answers as the real one would: a container
			// whose engine cannot be asked would not be stopped.
			r.Outcome = WouldSignal
			if err := stoppable(r.Manager); err != nil {
				r.Outcome, r.Cause = Failed, Cause{Kind: EngineUnasked, Err: err, Manager: r.Manager, Port: firstPort(r.Ports)}
			}
		case act.DryRun:
			r.Outcome = WouldSignal
			trace.Printf("reclaim: %d selected (%s); dry run", r.PID, r.Verdict)
		case r.Manager != nil && r.Manager.Kind == engines.Container:
			held = append(held, r)
		default:
			trace.Printf("reclaim: %d selected (%s)", r.PID, r.Verdict)
			if t := s.open(r, f); t != nil {
				set = append(set, t)
			}
		}
	}
	done := make(chan struct{})
	go func() { stopContainers(held, act.Grace); close(done) }()
	terminate(ctx, set, act)
	<-done
}

// target is a selected process held by a handle, on its way out.
type target struct {
	r       *Result
	h       *pidfd.Handle
	via     *pidfd.Handle // its supervisor's, with Action.ViaSupervisor
	viaPID  int
	exited  bool
	sendErr error
}

// open holds r's process for its signal, through the handle that held
// it since it was checked, confirmed still to be what selected it; or,
// where no handle could be had then, through one opened now, before the
// process is checked again whole. Either way a PID recycled since it was
// found is never signalled: the handle holds the process found or
// nothing. It returns nil, with r's outcome set, when the process is not
// to be signalled.
func (s *snapshot) open(r *Result, f Filter) *target {
	var outcome Outcome
	var reason Reason
	var cause Cause
	h := s.handle(r.PID)
	if h != nil {
		outcome, cause = confirm(h, r.Process, f)
	} else {
		var err error
		if h, err = pidfd.Open(proc.Host(), r.PID); errors.Is(err, proc.ErrGone) {
			r.Outcome = AlreadyGone
			return nil
		} else if err != nil {
			r.Outcome, r.Cause = Failed, Cause{Kind: SignalFailed, Err: err}
			return nil
		}
		outcome, reason, cause = recheck(r.Process, f)
	}
	if outcome != "" {
		h.Close()
		r.Outcome, r.Excluded, r.Cause = outcome, reason, cause
		trace.Printf("reclaim: %d not signalled: %s %s %s %v", r.PID, outcome, cause.Kind, reason, cause.Err)
		return nil
	}
	t := &target{r: r, h: h}
	if r.through {
		t.via, t.viaPID = s.openSupervisor(r.Process)
	}
	return t
}

// openSupervisor holds the supervisor of p, the process its markers name,
// when it is still that process (its start time, read again once the
// handle is open) and may still be ended in p's place (throughSupervisor
// said so before its run was left unwidened); nil otherwise, and p is
// then signalled itself.
func (s *snapshot) openSupervisor(p Process) (*pidfd.Handle, int) {
	pid, ok := s.supervisorPID(p)
	if !ok {
		return nil, 0
	}
	h, err := pidfd.Open(proc.Host(), pid)
	if err != nil {
		return nil, 0
	}
	if why := s.notThrough(p, pid); why != "" {
		h.Close()
		trace.Printf("reclaim: %d is signalled itself: its supervisor %d %s", p.PID, pid, why)
		return nil, 0
	}
	trace.Printf("reclaim: %d is to be ended through its supervisor %d", p.PID, pid)
	return h, pid
}

// terminate is the one escalation of tether over the whole set: Signal
// to each, Grace, then SIGKILL, all waited on from this one thread. The
// end of ctx ends the grace: SIGKILL at once, and what is alive a second
// later is reported Survived.
func terminate(ctx context.Context, set []*target, act Action) {
	e := &escalation{set: set, act: act, byPID: map[int]*target{}, viaSent: map[int]bool{}, killAt: time.Now().Add(act.Grace), hurry: ctx.Done()}
	for _, t := range set {
		e.byPID[t.r.PID] = t
		defer t.h.Close()
		if t.via != nil {
			defer t.via.Close()
		}
	}
	ended := runtree.Tree{
		What:    "reclaim",
		Sources: []runtree.Source{runtree.SourceFunc(e.list)},
		Signal:  act.Signal,
		Send:    e.send,
		Wait:    e.wait,
	}.End(ctx, act.Grace)
	for _, t := range set {
		t.r.Outcome, t.r.Cause = outcomeOf(t, ended, ctx.Err())
		trace.Printf("reclaim: %d %s %s %v", t.r.PID, t.r.Outcome, t.r.Cause.Kind, t.r.Cause.Err)
	}
}

// escalation is the state of one terminate: the set on its way out.
type escalation struct {
	set    []*target
	act    Action
	byPID  map[int]*target
	killAt time.Time
	// viaSent are the supervisors signalled already: one of several
	// holders (forked workers) is signalled once.
	viaSent map[int]bool
	// hurry is the caller's context's end (nil for one that cannot end).
	hurry <-chan struct{}
}

// live are the targets not yet seen to exit, and not failed.
func (e *escalation) live() []*target {
	var out []*target
	for _, t := range e.set {
		if !t.exited && t.sendErr == nil {
			out = append(out, t)
		}
	}
	return out
}

// wait waits until a live target exits or the deadline passes, telling
// the progress meanwhile when asked to.
// hurryEvery is how often a wait looks at the caller's context.
const hurryEvery = 100 * time.Millisecond

func (e *escalation) wait(deadline time.Time) {
	ts := e.live()
	if e.act.Progress != nil && len(ts) > 0 && time.Now().Before(e.killAt) {
		e.act.Progress(len(ts), time.Until(e.killAt))
		// Short waits, so that the time left is told as it runs.
		deadline = minTime(deadline, time.Now().Add(200*time.Millisecond))
	}
	if e.hurry != nil {
		// A context that can end: it is looked at between short waits.
		deadline = minTime(deadline, time.Now().Add(hurryEvery))
	}
	hs := make([]*pidfd.Handle, len(ts))
	for i, t := range ts {
		hs[i] = t.h
	}
	for i, done := range pidfd.Exited(hs, deadline) {
		ts[i].exited = ts[i].exited || done
	}
}

func (e *escalation) list() ([]procid.ID, bool) {
	e.wait(time.Now())
	var ms []procid.ID
	for _, t := range e.live() {
		ms = append(ms, procid.ID{PID: t.r.PID, StartTime: t.r.StartTime})
	}
	return ms, false
}

// send signals one target through its handle, or, with a supervisor to
// go through, its supervisor (all but SIGKILL).
func (e *escalation) send(m procid.ID, sig syscall.Signal) error {
	t := e.byPID[m.PID]
	if t.via != nil && sig != syscall.SIGKILL {
		return sendVia(t, sig, e.viaSent)
	}
	err := t.h.Signal(sig)
	switch {
	case err == nil:
		t.r.Signals = append(t.r.Signals, Sent{Signal: sig})
	case !errors.Is(err, proc.ErrGone):
		t.sendErr = err
	}
	return err
}

// sendVia sends sig to t's supervisor, once for all the processes it
// supervises: it passes the signal on to its whole run.
func sendVia(t *target, sig syscall.Signal, sent map[int]bool) error {
	if sent[t.viaPID] {
		t.r.Signals = append(t.r.Signals, Sent{Signal: sig, ToSupervisor: true})
		return nil
	}
	if err := t.via.Signal(sig); err != nil {
		// The supervisor went meanwhile: the process itself, then.
		trace.Printf("reclaim: %s to the supervisor of %d: %v; to the process", signame.Name(sig), t.r.PID, err)
		t.via = nil
		err = t.h.Signal(sig)
		if err == nil {
			t.r.Signals = append(t.r.Signals, Sent{Signal: sig})
		}
		return err
	}
	sent[t.viaPID] = true
	t.r.Signals = append(t.r.Signals, Sent{Signal: sig, ToSupervisor: true})
	return nil
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func outcomeOf(t *target, ended bool, cancelled error) (Outcome, Cause) {
	switch {
	case t.sendErr != nil:
		return Failed, Cause{Kind: SignalFailed, Err: t.sendErr}
	case !t.exited && !ended && cancelled != nil:
		return Survived, Cause{Kind: CutShort, Err: cancelled}
	case !t.exited && !ended:
		return Survived, Cause{Kind: KillIgnored, After: kill.WaitAfterKill}
	case len(t.r.Signals) == 0:
		return AlreadyGone, Cause{}
	}
	return Gone, Cause{}
}
