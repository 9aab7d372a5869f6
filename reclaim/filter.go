package reclaim

import (
	"errors"
	"fmt"
	"os"

	"github.com/tetherproc/tether/internal/engines"
	"github.com/tetherproc/tether/marker"
	"github.com/tetherproc/tether/probe"
)

// Filter says which tethered processes a reclaim or a listing is about.
// The zero value selects the caller's own stranded processes under the
// protocol's own markers.
type Filter struct {
	// Markers and Name are matched as [probe.Check] matches them.
	Markers marker.Markers
	Name    string // the exact name; empty for any
	// Ports narrows the selection to the holders of these ports (TCP
	// listening or UDP bound, IPv4 or IPv6).
	Ports []uint16
	// Proto, with Ports, counts only sockets of one kind: "tcp"
	// (listening) or "udp" (bound); "" for both.
	Proto string
	// RunID narrows the selection to one run.
	RunID string
	// All selects supervised processes too; by default only stranded
	// ones are.
	All bool
	// AnyUser widens the selection to every user's processes; by default
	// only the caller's are selected (see [Process.UID]).
	AnyUser bool
	// Foreign, with Ports, selects the holders tether did not start too:
	// foreign ones, and unverifiable ones (a server that wrote its title
	// over its environment). Such a holder is known by the socket it
	// holds, the port's listening TCP or bound UDP socket, never by a
	// connection to the port: a client is never selected. Another user's
	// holder is selected only for root, with AnyUser.
	Foreign bool
}

// Validate reports a bad filter, naming the value.
func (f Filter) Validate() error {
	if err := (probe.Query{Markers: f.Markers, Name: f.Name}).Validate(); err != nil {
		return err
	}
	if f.RunID != "" {
		if err := marker.ValidateRunID(f.RunID); err != nil {
			return err
		}
	}
	for _, p := range f.Ports {
		if p == 0 {
			return errors.New("invalid port \"0\": must be 1-65535")
		}
	}
	if f.Proto != "" && f.Proto != "tcp" && f.Proto != "udp" {
		return fmt.Errorf("invalid protocol %q: tcp, udp or \"\" for both", f.Proto)
	}
	return nil
}

func (f Filter) query() probe.Query { return probe.Query{Markers: f.Markers, Name: f.Name} }

// mine is the one definition of whose a process is: its real user id is
// the caller's real user id, as the kernel's own permission to signal it
// reads the target's real id. A process whose uid could not be read is
// not counted as another user's here; it is unverifiable and never
// selected anyway.
func mine(p Process) bool {
	return p.UID == nil || *p.UID == os.Getuid()
}

// matches reports whether p is one of the tethered processes f is about,
// whatever its state: the rule a listing applies. It returns the empty
// Reason when it is, else the kind of reason.
func (f Filter) matches(p Process) Reason {
	switch {
	case !p.Tethered:
		return NotTethered
	case f.RunID != "" && p.RunID != f.RunID:
		return OtherRun
	case !f.AnyUser && !mine(p) && !(p.ofRun && os.Geteuid() == 0):
		return OtherUser
	}
	return ""
}

// selects reports whether f selects p for termination (the empty
// Reason), and if not, why: matches, not protected, and stranded unless
// All; or, with Foreign, a holder of a port asked about that tether did
// not start.
func (f Filter) selects(p Process) Reason {
	if p.Protected != "" {
		return Protected
	}
	if foreignHolder(p) {
		m := p.Manager
		switch {
		case m != nil && m.Kind == engines.Unit:
			return ManagedUnit
		case m != nil && m.Kind == engines.ProcessManager:
			return ManagedProgram
		case !f.Foreign:
			return ForeignHolder
		case m != nil && m.Kind == engines.Container:
			// Stopped through its engine, which decides who may.
			return ""
		}
		return f.ownHolder(p)
	}
	if reason := f.matches(p); reason != "" {
		return reason
	}
	if p.Verdict == probe.Supervised && !f.All {
		return SupervisedRun
	}
	return ""
}

// foreignHolder reports whether p is a holder of a port asked about that
// tether did not start, or cannot tell it did: the holders Foreign adds.
func foreignHolder(p Process) bool {
	return len(p.Ports) > 0 && (p.Verdict == probe.Foreign || p.Verdict == probe.Unverifiable)
}

// ownHolder applies the rule of whose processes to a foreign holder: the
// caller's own; another user's only for root, with AnyUser, as the
// kernel would refuse anyone else the signal.
func (f Filter) ownHolder(p Process) Reason {
	switch {
	case mine(p):
		return ""
	case !f.AnyUser:
		return OtherUserHolder
	case os.Geteuid() != 0:
		return RootOnly
	}
	return ""
}
