package reclaim

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/tetherproc/tether/internal/proc"
)

// The pauses between two checks of a wait: the first is short, so that
// a server that is quick to listen is seen at once; they grow by half
// each time up to waitBackoff, so that one that takes seconds costs a
// few checks a second and no more.
const (
	waitInterval = 50 * time.Millisecond
	waitBackoff  = 250 * time.Millisecond
)

// WaitSpec is what [WaitSpec.Wait] waits for: the ports a server that
// was just started must listen on before it can be used, and the process
// whose death means it never will. It is the question behind tether
// wait, for a Go program that starts its own servers.
type WaitSpec struct {
	// Ports must each have a listener: a listening TCP socket or a bound
	// UDP one, IPv4 or IPv6, found as Filter.Ports finds them.
	Ports []uint16
	// PID, when not 0, is the server (or the tether run that started
	// it): once it has exited, a zombie included, the wait ends at once
	// instead of at the timeout.
	PID int
	// Owned counts only a listener held by PID or one of its
	// descendants, so that a program already on a port is not taken for
	// the server being waited for. It needs PID.
	Owned bool
	// Timeout is how long to wait for; 0 checks once.
	Timeout time.Duration
	// Interval is the first pause between two checks (0 is 50ms); each
	// next one is half as long again, up to 250ms or Interval, whichever
	// is longer.
	Interval time.Duration
}

// Readiness is one port as a wait leaves it: whether a listener on it is
// in sight, and whose, so that a caller can say what is ready or name
// what is missing.
type Readiness struct {
	Port uint16 `json:"port"`
	// Ready says that a process in sight holds a listener on the port.
	Ready bool `json:"ready"`
	// Listeners are the port's listeners that Holders hold.
	Listeners []Listener `json:"listeners,omitempty"`
	// Holders are the processes that hold them, whoever they are, each
	// with its verdict; with Owned, only PID and its descendants.
	Holders []Process `json:"holders,omitempty"`
}

// Wait checks until every port has a listener (ready), the process PID
// is gone first (pidGone), or the timeout runs out (neither), and then
// says who serves each port now. Without Owned a check is one read of
// the socket table and no walk of any process's descriptors, so that a
// wait costs next to nothing however long it lasts. PID is watched
// through a handle opened before the first check (a pidfd on Linux), so
// that a later process given the same PID is not taken for it.
//
// A port counts as served by a socket whose holder is out of sight (a
// process of another user, when the caller is not root), so ready can
// be true while that port's Readiness is not Ready. The error is for a
// bad spec, a socket table that cannot be read, or a PID that cannot be
// watched.
func (s WaitSpec) Wait() (ports []Readiness, ready, pidGone bool, err error) {
	if err := s.validate(); err != nil {
		return nil, false, false, err
	}
	s.Ports = unique(s.Ports)
	if ready, pidGone, err = s.poll(); err != nil {
		return nil, false, false, err
	}
	if ports, err = s.describe(); err != nil {
		return nil, false, false, err
	}
	return ports, ready, pidGone, nil
}

func (s WaitSpec) validate() error {
	switch {
	case len(s.Ports) == 0:
		return errors.New("nothing to wait for: no port given")
	case slices.Contains(s.Ports, 0):
		return errors.New("invalid port \"0\": must be 1-65535")
	case s.PID < 0:
		return fmt.Errorf("invalid PID %d: must be positive, or 0 for none", s.PID)
	case s.Owned && s.PID == 0:
		return errors.New("owned listeners asked for with no PID: Owned needs the process whose listeners count")
	case s.Timeout < 0:
		return fmt.Errorf("invalid timeout %v: negative", s.Timeout)
	case s.Interval < 0:
		return fmt.Errorf("invalid interval %v: negative", s.Interval)
	}
	return nil
}

// poll checks the ports until every one is served, PID is gone, or the
// timeout runs out. Its pauses are spent waiting on PID's handle, so
// that an exit ends the wait at once, and the handle is closed by the
// goroutine that polls it, which is this one.
func (s WaitSpec) poll() (ready, gone bool, err error) {
	deadline := time.Now().Add(s.Timeout)
	var h *proc.Handle
	if s.PID != 0 {
		h, err = proc.Host().Open(s.PID)
		if errors.Is(err, proc.ErrGone) {
			return false, true, nil
		} else if err != nil {
			return false, false, fmt.Errorf("watch PID %d: %w", s.PID, err)
		}
		defer h.Close()
	}
	interval := s.Interval
	if interval == 0 {
		interval = waitInterval
	}
	pause := interval
	for {
		var owners []int
		if s.Owned {
			owners = s.owners()
		}
		got, err := served(s.Ports, owners)
		if err != nil {
			return false, false, err
		}
		if len(got) == len(s.Ports) {
			return true, false, nil
		}
		left := time.Until(deadline)
		if left <= 0 {
			return false, false, nil
		}
		if exitedWithin(h, min(pause, left)) {
			return false, true, nil
		}
		pause = min(pause*3/2, max(waitBackoff, interval))
	}
}

// exitedWithin waits d, or less when the process of h (if any) exits
// first, and reports whether it did. A zombie has exited: its status is
// its parent's to collect, and it serves no port.
func exitedWithin(h *proc.Handle, d time.Duration) bool {
	if h == nil {
		time.Sleep(d)
		return false
	}
	// Exited can come back early without an exit (an interrupted poll):
	// the pause is served whole all the same.
	end := time.Now().Add(d)
	for time.Now().Before(end) {
		if proc.Exited([]*proc.Handle{h}, end)[0] {
			return true
		}
	}
	return false
}

// owners are PID and its descendants: the processes whose listeners
// count with Owned, read anew at each check since a server may hand its
// socket to a child it starts later.
func (s WaitSpec) owners() []int {
	out := []int{s.PID}
	for _, m := range proc.Host().Subtree(s.PID, 0) {
		out = append(out, m.PID)
	}
	return out
}

// served tells which of ports have a listener now, as Filter.Ports finds
// them. With owners given, only a listener that one of those processes
// holds counts. Without owners it is one read of the socket table and no
// walk of any process's descriptors: the cost of one check of a wait.
func served(ports []uint16, owners []int) (map[uint16]bool, error) {
	want := map[uint16]bool{}
	for _, p := range ports {
		want[p] = true
	}
	ls, err := listeners(want)
	if err != nil {
		return nil, err
	}
	out := map[uint16]bool{}
	if owners == nil {
		for _, l := range ls {
			out[l.Port] = true
		}
		return out, nil
	}
	hs, err := holders(ls, owners)
	if err != nil {
		return nil, err
	}
	for _, h := range hs {
		out[h.listener.Port] = true
	}
	return out, nil
}

// describe says who serves each port now, whoever it is; with Owned,
// only PID and its descendants count.
func (s WaitSpec) describe() ([]Readiness, error) {
	procs, err := List(Filter{Ports: s.Ports, AnyUser: true})
	if err != nil {
		return nil, err
	}
	var owners []int
	if s.Owned {
		owners = s.owners()
	}
	out := make([]Readiness, len(s.Ports))
	for i, port := range s.Ports {
		out[i].Port = port
		for _, p := range procs {
			if owners != nil && !slices.Contains(owners, p.PID) {
				continue
			}
			for _, l := range p.Ports {
				if l.Port == port {
					out[i].Listeners = append(out[i].Listeners, l)
					if !slices.ContainsFunc(out[i].Holders, func(q Process) bool { return q.PID == p.PID }) {
						out[i].Holders = append(out[i].Holders, p)
					}
				}
			}
		}
		out[i].Ready = len(out[i].Listeners) > 0
	}
	return out, nil
}
