package main

import (
	"fmt"

	"github.com/tetherproc/tether/probe"
	"github.com/tetherproc/tether/reclaim"
)

// The words of a reclaim's results: why a process was left out, or how a
// selected one was not ended, made here from the library's typed values,
// and the flag of the command that would include or end it.

// hints says whose flags a reason is worded with.
type hints int

const (
	noHints      hints = iota // the reason alone
	reclaimHints              // tether reclaim's and free's flags
	runHints                  // tether run --port's flags
)

// whyText is why r was skipped, changed, failed or survived, in words,
// with the flag of h's command that would include or end it; "" when
// there is nothing to say.
func whyText(r reclaim.Result, h hints) string {
	why := bareWhy(r)
	switch h {
	case reclaimHints:
		return why + reclaimHint(r)
	case runHints:
		return why + runHint(r)
	}
	return why
}

// bareWhy is r's reason or cause, with no flag.
func bareWhy(r reclaim.Result) string {
	if r.Outcome == reclaim.Skipped {
		return excludedText(r.Process, r.Excluded)
	}
	return causeText(r)
}

// excludedText says why p is left out for reason.
func excludedText(p reclaim.Process, reason reclaim.Reason) string {
	switch reason {
	case reclaim.NotTethered, reclaim.ForeignHolder:
		return string(p.Verdict) + ": " + reasonText(p.Report)
	case reclaim.OtherRun:
		return fmt.Sprintf("another run (%s)", p.RunID)
	case reclaim.OtherUser, reclaim.OtherUserHolder:
		return fmt.Sprintf("another user's (uid %s)", uidText(p.UID))
	case reclaim.RootOnly:
		return fmt.Sprintf("another user's (uid %s): only root may end it", uidText(p.UID))
	case reclaim.SupervisedRun:
		return "supervised" + supervisorNote(p.Report)
	case reclaim.Protected:
		return protectedText(p.Protected)
	case reclaim.ManagedUnit:
		return fmt.Sprintf("%s, which would restart it or mark it failed: %s stops it", managerText(p.Manager), stopCommand(p.Manager))
	case reclaim.ManagedProgram:
		return fmt.Sprintf("%s, which would start it again: %s", managerText(p.Manager), programAdvice(p.Manager))
	}
	return string(reason)
}

// protectedText says why a process is never signalled; "" for one that
// may be.
func protectedText(p reclaim.Protection) string {
	switch p {
	case reclaim.ProtectedPID1:
		return "PID 1 is never signalled"
	case reclaim.ProtectedSelf:
		return "tether itself"
	case reclaim.ProtectedAncestor:
		return "an ancestor of tether"
	}
	return string(p)
}

func uidText(uid *int) string {
	if uid == nil {
		return "?"
	}
	return fmt.Sprint(*uid)
}

func supervisorNote(r probe.Report) string {
	if s := r.Supervisor; s != nil {
		return fmt.Sprintf(" by %d (%s)", s.LocalPID(), s.State)
	}
	return fmt.Sprintf(" (parent %d)", r.PPID)
}

// causeText says why the selected r was not ended as asked.
func causeText(r reclaim.Result) string {
	c := r.Cause
	switch c.Kind {
	case reclaim.StartChanged:
		return fmt.Sprintf("PID %d now belongs to another process (start time %d, was %d)", r.PID, c.Now, c.Was)
	case reclaim.NoLongerSelected:
		again := reclaim.Process{Report: r.Report, Ports: r.Ports, Protected: r.Protected}
		if c.Again != nil {
			again.Report = *c.Again
		}
		return "no longer selected: " + excludedText(again, r.Excluded)
	case reclaim.MarkersGone:
		return fmt.Sprintf("PID %d no longer carries the markers it was selected by", r.PID)
	case reclaim.SocketGone:
		return fmt.Sprintf("PID %d no longer holds the socket of port %d", r.PID, c.Port)
	case reclaim.Unchecked, reclaim.SignalFailed:
		return errText(c.Err)
	case reclaim.EngineUnasked:
		return fmt.Sprintf("%s: %v: nothing would be signalled; %s", managerText(c.Manager), c.Err, stopAdvice(c.Manager, c.Port))
	case reclaim.EngineFailed:
		return fmt.Sprintf("%s: %v: nothing signalled; %s", managerText(c.Manager), c.Err, stopAdvice(c.Manager, c.Port))
	case reclaim.KillIgnored:
		return fmt.Sprintf("still alive %v after SIGKILL", c.After)
	case reclaim.CutShort:
		return fmt.Sprintf("still alive a second after SIGKILL, sent at once as the reclaim was cut short (%v)", c.Err)
	}
	return ""
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// reclaimHint is the flag of tether reclaim's (and free's) that would
// have included r, left out for its Excluded reason.
func reclaimHint(r reclaim.Result) string {
	switch r.Excluded {
	case reclaim.OtherUser:
		return "; --any-user to include"
	case reclaim.OtherUserHolder:
		return "; as root, --any-user to include"
	case reclaim.ForeignHolder:
		if r.Manager != nil {
			return "; --foreign to stop it through its engine"
		}
		return "; --foreign to end it"
	case reclaim.SupervisedRun:
		return "; --all to include"
	}
	return ""
}

// runHint is tether run's own flag that would end the holder r, which
// it left.
func runHint(r reclaim.Result) string {
	switch {
	case r.Selected:
		return ""
	case r.Verdict == probe.Supervised:
		return "; --replace would end it through its tether"
	case r.Verdict != probe.Foreign && r.Verdict != probe.Unverifiable:
		return ""
	}
	switch r.Excluded {
	case reclaim.OtherUserHolder, reclaim.RootOnly, reclaim.ManagedUnit, reclaim.ManagedProgram, reclaim.Protected:
		return ""
	}
	if r.Manager != nil {
		return "; --foreign would stop it through its engine"
	}
	return "; --foreign would end it"
}
