package runtree

import (
	"context"
	"errors"
	"syscall"
	"time"

	"github.com/tetherproc/tether/internal/kill"
	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/signame"
	"github.com/tetherproc/tether/internal/trace"
	"github.com/tetherproc/tether/procid"
)

// End ends the tree: Signal to each member the first time it is seen,
// and once grace has passed, the KillAll of its sources and SIGKILL to
// each member, until the tree has been empty and settled for Quiet. The
// tree may grow while it ends: a member forked meanwhile gets Signal when
// it is first listed. The end of ctx ends the grace at once (KILL), and
// what is alive a second after is left. It reports whether the tree
// ended, false when members were left alive (kill.WaitAfterKill after
// their KILL, or a second after ctx ended).
func (t Tree) End(ctx context.Context, grace time.Duration) bool {
	e := ending{t: t, send: t.send(), first: t.Signal, hurry: ctx.Done(),
		seen: map[procid.ID]bool{}, killed: map[procid.ID]bool{}}
	if e.first == 0 {
		e.first = syscall.SIGTERM
	}
	wait := t.Wait
	if wait == nil {
		wait = func(deadline time.Time) { time.Sleep(min(10*time.Millisecond, max(0, time.Until(deadline)))) }
	}
	e.killAt = time.Now().Add(grace)
	e.giveUp = e.killAt.Add(kill.WaitAfterKill)
	for {
		live, unsettled := t.Members()
		if t.OnLook != nil {
			t.OnLook(live)
		}
		if ended, done := e.look(live, unsettled, grace); done {
			return ended
		}
		next := e.giveUp
		if !e.killing {
			next = e.killAt
		}
		wait(next)
	}
}

// ending is the state of one End: who was signalled, and when KILL is
// due.
type ending struct {
	t       Tree
	send    func(procid.ID, syscall.Signal) error
	first   syscall.Signal
	hurry   <-chan struct{}
	killAt  time.Time
	giveUp  time.Time
	killing bool
	hurried bool
	// quietSince is when the tree was first seen empty and settled in
	// a row of such looks; zero while it is not.
	quietSince time.Time
	// seen got the first signal, killed got KILL: once each is enough,
	// and KILL cannot be caught or ignored.
	seen, killed map[procid.ID]bool
}

// look acts on one look's members: it reports done, with whether the
// tree ended, once it has been quiet long enough or is past all waiting;
// otherwise it signals what is due.
func (e *ending) look(live []procid.ID, unsettled bool, grace time.Duration) (ended, done bool) {
	now := time.Now()
	if len(live) == 0 && !unsettled {
		if e.quietSince.IsZero() {
			e.quietSince = now
		}
		if now.Sub(e.quietSince) >= e.t.Quiet {
			return true, true
		}
	} else {
		e.quietSince = time.Time{}
	}
	if now.After(e.giveUp) {
		trace.Printf("%s: %d still alive %v after KILL; giving up", e.t.What, len(live), kill.WaitAfterKill)
		return len(live) == 0, true
	}
	if !e.hurried && hurried(e.hurry) {
		// Past the caller's deadline: KILL now, and what is still alive
		// a second after is reported, not waited on.
		e.hurried = true
		if soon := now.Add(time.Second); soon.Before(e.giveUp) {
			e.giveUp = soon
		}
	}
	if !e.killing && (!now.Before(e.killAt) || e.hurried) {
		e.killing = true
		trace.Printf("%s: grace of %v over, escalating to KILL", e.t.What, grace)
		e.t.killAll()
	}
	for _, m := range live {
		if !e.seen[m] {
			e.seen[m] = true
			e.signal(m, e.first)
		}
		if e.killing && !e.killed[m] {
			e.killed[m] = true
			e.signal(m, syscall.SIGKILL)
		}
	}
	return false, false
}

// hurried reports whether c is closed.
func hurried(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

func (e *ending) signal(m procid.ID, sig syscall.Signal) {
	err := e.send(m, sig)
	switch {
	case err == nil:
		trace.Printf("%s: %s to %d", e.t.What, signame.Name(sig), m.PID)
	case errors.Is(err, proc.ErrGone):
	default:
		trace.Printf("%s: %s to %d failed: %v", e.t.What, signame.Name(sig), m.PID, err)
	}
}
