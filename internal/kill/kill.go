package kill

import (
	"errors"
	"fmt"
	"syscall"
	"time"

	"github.com/tetherproc/tether/internal/pidfd"
	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/signame"
	"github.com/tetherproc/tether/internal/trace"
	"github.com/tetherproc/tether/procid"
)

// WaitAfterKill bounds the wait for processes to go after SIGKILL: only a
// process stuck in the kernel (D state) takes longer, and past it the
// escalation reports the survivors instead of waiting on them forever.
const WaitAfterKill = 10 * time.Second

// Signal sends sig to m as this process's /proc numbers it: SignalIn on
// proc.Host().
func Signal(m procid.ID, sig syscall.Signal) error { return SignalIn(proc.Host(), m, sig) }

// SignalIn sends sig to m, as fs numbers it, through a handle opened before m's start time is
// read again, so that a PID recycled since m was seen (a grandchild
// reaped by its own parent) is never signalled. ErrGone when m no longer
// holds its PID.
func SignalIn(fs proc.FS, m procid.ID, sig syscall.Signal) error {
	h, err := pidfd.Open(fs, m.PID)
	if err != nil {
		return err
	}
	defer h.Close()
	st, err := fs.Stat(m.PID)
	switch {
	case err != nil:
		return err
	case st.StartTime != m.StartTime:
		return fmt.Errorf("signal %d: PID recycled (start time %d, was %d): %w", m.PID, st.StartTime, m.StartTime, proc.ErrGone)
	case st.Zombie():
		return fmt.Errorf("signal %d: a zombie: %w", m.PID, proc.ErrGone)
	}
	return h.Signal(sig)
}

// Escalation ends a set of processes that may grow while it runs: Signal
// to each member the first time it is seen, SIGKILL to every member once
// Grace has passed, until the set is empty. It is the one TERM, grace,
// KILL of tether, which runtree.Tree.End builds from a tree's sources.
type Escalation struct {
	// Signal is sent first; default SIGTERM.
	Signal syscall.Signal
	// Grace is how long the set gets between Signal and SIGKILL.
	Grace time.Duration
	// List returns the live members now; unsettled says that some process
	// could not yet be told to be a member or not (in the middle of an
	// execve), so an empty list does not end the set.
	List func() (live []procid.ID, unsettled bool)
	// Send signals one member; ErrGone means it is already gone.
	Send func(m procid.ID, sig syscall.Signal) error
	// KillAll, when set, is called once as the grace ends, before the
	// members get SIGKILL one by one: a cgroup's kill, which also takes
	// whatever the members fork meanwhile.
	KillAll func()
	// Wait blocks until a member may have exited or until the deadline.
	Wait func(deadline time.Time)
	// Quiet is how long List must come back empty and settled before the
	// set is taken as ended: a process forked a moment ago may not be
	// listed yet. Zero ends it at the first empty list.
	Quiet time.Duration
	// What names the set in trace lines: "tree of 4242", "run 3fa0…".
	What string
	// Hurry, when closed, ends the grace at once (the caller's deadline
	// came first): KILL, and a second for it to take effect.
	Hurry <-chan struct{}
}

// Run carries the escalation out: each member gets Signal once and, past
// Grace, SIGKILL once. It reports whether the set ended, or false when
// members were still alive WaitAfterKill after the SIGKILL.
func (e Escalation) Run() bool {
	first := e.Signal
	if first == 0 {
		first = syscall.SIGTERM
	}
	killAt := time.Now().Add(e.Grace)
	giveUp := killAt.Add(WaitAfterKill)
	seen, killed := map[procid.ID]bool{}, map[procid.ID]bool{}
	var quietSince time.Time
	hurried := false
	for killing := false; ; {
		live, unsettled := e.List()
		now := time.Now()
		if len(live) == 0 && !unsettled {
			if quietSince.IsZero() {
				quietSince = now
			}
			if now.Sub(quietSince) >= e.Quiet {
				return true
			}
		} else {
			quietSince = time.Time{}
		}
		if now.After(giveUp) {
			trace.Printf("%s: %d still alive %v after KILL; giving up", e.What, len(live), WaitAfterKill)
			return len(live) == 0
		}
		if e.hurried() && !hurried {
			// Past the caller's deadline: KILL now, and what is
			// still alive a second after is reported, not waited on.
			hurried = true
			if soon := now.Add(time.Second); soon.Before(giveUp) {
				giveUp = soon
			}
		}
		if !killing && (!now.Before(killAt) || hurried) {
			killing = true
			trace.Printf("%s: grace of %v over, escalating to KILL", e.What, e.Grace)
			if e.KillAll != nil {
				e.KillAll()
			}
		}
		for _, m := range live {
			if !seen[m] {
				seen[m] = true
				e.send(m, first)
			}
			// KILL cannot be caught or ignored: once per member is enough.
			if killing && !killed[m] {
				killed[m] = true
				e.send(m, syscall.SIGKILL)
			}
		}
		next := giveUp
		if !killing {
			next = killAt
		}
		e.Wait(next)
	}
}

// hurried reports whether Hurry is closed.
func (e Escalation) hurried() bool {
	select {
	case <-e.Hurry:
		return true
	default:
		return false
	}
}

func (e Escalation) send(m procid.ID, sig syscall.Signal) {
	err := e.Send(m, sig)
	switch {
	case err == nil:
		trace.Printf("%s: %s to %d", e.What, signame.Name(sig), m.PID)
	case errors.Is(err, proc.ErrGone):
	default:
		trace.Printf("%s: %s to %d failed: %v", e.What, signame.Name(sig), m.PID, err)
	}
}
