package reclaim

import (
	"slices"

	"github.com/tetherproc/tether/internal/pidfd"
	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/sockets"
	"github.com/tetherproc/tether/marker"
	"github.com/tetherproc/tether/probe"
)

// confirm is what is checked before the signal of a process held since
// it was checked (its handle h): that h still holds it, alive, which is
// its identity, and that it still has what selected it. A port's holder
// was found by its socket, which it must still hold (a holder tether did
// not start by that alone); a tethered process by its markers, which its
// environment must still carry. Any other (tied to its run by a
// container or a record) is checked again whole. It returns "" when the process may be
// signalled, else AlreadyGone or Changed, and the cause.
func confirm(h *pidfd.Handle, p Process, f Filter) (Outcome, Cause) {
	if !h.Holds(p.StartTime) {
		return AlreadyGone, Cause{}
	}
	if len(p.Ports) > 0 && !holdsSocket(p) {
		// Found by its socket: a process that no longer holds it (or
		// never did: its PID taken between the look-up and the check)
		// is no holder.
		return Changed, Cause{Kind: SocketGone, Port: p.Ports[0].Port}
	}
	switch {
	case foreignHolder(p):
		return "", Cause{}
	case p.Tethered && p.Container == nil:
		return stillMarked(p, f)
	}
	outcome, _, cause := recheck(p, f)
	return outcome, cause
}

// stillMarked confirms that p's environment still carries the markers,
// name and run id it was selected by.
func stillMarked(p Process, f Filter) (Outcome, Cause) {
	env, err := proc.Host().Environ(p.PID)
	if err != nil {
		return Changed, Cause{Kind: Unchecked, Err: err}
	}
	m := f.Markers.WithDefaults()
	if !m.Match(env, f.Name) || p.RunID != "" && !slices.Contains(env, marker.RunIDVar+"="+p.RunID) {
		return Changed, Cause{Kind: MarkersGone}
	}
	return "", Cause{}
}

// recheck is the check made through an open handle right before the
// signal of a process no handle held since it was checked: the same process (start time), still tethered under the same
// name and run, still selected. It returns "" when the process may be
// signalled, else the outcome to report (AlreadyGone or Changed), the
// kind of reason when it is no longer selected, and the cause.
func recheck(p Process, f Filter) (Outcome, Reason, Cause) {
	r, err := probe.Check(p.PID, f.query())
	switch {
	case err != nil:
		return Changed, "", Cause{Kind: Unchecked, Err: err}
	case r.Verdict == probe.Gone || r.Verdict == probe.Zombie:
		return AlreadyGone, "", Cause{}
	case r.StartTime != p.StartTime:
		return Changed, "", Cause{Kind: StartChanged, Was: p.StartTime, Now: r.StartTime}
	}
	again := Process{Report: r, Ports: p.Ports, Protected: p.Protected, ofRun: p.ofRun}
	if reason := f.selects(again); reason != "" {
		return Changed, reason, Cause{Kind: NoLongerSelected, Again: &r}
	}
	if foreignHolder(again) && !holdsSocket(p) {
		// Known by the socket alone: without it, it is no holder.
		return Changed, "", Cause{Kind: SocketGone, Port: p.Ports[0].Port}
	}
	return "", "", Cause{}
}

// holdsSocket reports whether p's descriptor table still holds one of
// the sockets it was found holding.
func holdsSocket(p Process) bool {
	ls := make(map[uint64]Listener, len(p.Ports))
	for _, l := range p.Ports {
		ls[l.Inode] = l
	}
	hs, err := sockets.HoldersAmong(ls, []int{p.PID})
	return err == nil && len(hs) > 0
}
