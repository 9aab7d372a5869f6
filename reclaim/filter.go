package reclaim

import (
	"errors"
	"fmt"
	"os"

	"github.com/tetherproc/tether/probe"
)

// Filter says which tethered processes a reclaim or a listing is about.
// The zero value selects the caller's own stranded processes under the
// protocol's own markers.
type Filter struct {
	// Markers and Name are matched as [probe.Check] matches them.
	Markers probe.Markers
	Name    string // the exact name; empty for any
	// Ports narrows the selection to the holders of these ports (TCP
	// listening or UDP bound, IPv4 or IPv6).
	Ports []uint16
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
		if err := (probe.Stamp{RunID: f.RunID}).Validate(); err != nil {
			return err
		}
	}
	for _, p := range f.Ports {
		if p == 0 {
			return errors.New("invalid port \"0\": must be 1-65535")
		}
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
// whatever its state: the rule a listing applies.
func (f Filter) matches(p Process) (bool, string) {
	switch {
	case !p.Tethered:
		return false, string(p.Verdict) + ": " + p.Reason
	case f.RunID != "" && p.RunID != f.RunID:
		return false, fmt.Sprintf("another run (%s)", p.RunID)
	case !f.AnyUser && !mine(p) && !(p.ofRun && os.Geteuid() == 0):
		return false, fmt.Sprintf("another user's (uid %d); --any-user to include", *p.UID)
	}
	return true, ""
}

// selects reports whether f selects p for termination, and if not, why:
// matches, not protected, and stranded unless All; or, with Foreign, a
// holder of a port asked about that tether did not start.
func (f Filter) selects(p Process) (bool, string) {
	if p.Protected != "" {
		return false, p.Protected
	}
	if foreignHolder(p) {
		if !f.Foreign {
			return false, string(p.Verdict) + ": " + p.Reason + "; --foreign to end it"
		}
		return f.ownHolder(p)
	}
	if ok, why := f.matches(p); !ok {
		return false, why
	}
	if p.Verdict == probe.Supervised && !f.All {
		return false, "supervised" + supervisorNote(p) + "; --all to include"
	}
	return true, ""
}

// foreignHolder reports whether p is a holder of a port asked about that
// tether did not start, or cannot tell it did: the holders Foreign adds.
func foreignHolder(p Process) bool {
	return len(p.Ports) > 0 && (p.Verdict == probe.Foreign || p.Verdict == probe.Unverifiable)
}

// ownHolder applies the rule of whose processes to a foreign holder: the
// caller's own; another user's only for root, with AnyUser, as the
// kernel would refuse anyone else the signal.
func (f Filter) ownHolder(p Process) (bool, string) {
	switch {
	case mine(p):
		return true, ""
	case !f.AnyUser:
		return false, fmt.Sprintf("another user's (uid %d); as root, --any-user to include", *p.UID)
	case os.Geteuid() != 0:
		return false, fmt.Sprintf("another user's (uid %d): only root may end it", *p.UID)
	}
	return true, ""
}

func supervisorNote(p Process) string {
	if s := p.Supervisor; s != nil && s.HostPID != 0 {
		return fmt.Sprintf(" by %d (%s)", s.HostPID, s.State)
	} else if s != nil {
		return fmt.Sprintf(" by %d (%s)", s.PID, s.State)
	}
	return fmt.Sprintf(" (parent %d)", p.PPID)
}
