package readiness

import (
	"errors"
	"fmt"
	"time"

	"github.com/tetherproc/tether/internal/pidfd"
	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/ptree"
	"github.com/tetherproc/tether/internal/sockets"
)

// The pauses between two checks of a wait: the first is short, so that
// a server that is quick to listen is seen at once; they grow by half
// each time up to waitBackoff: ten checks a second, each a read of the
// socket table (0.07 ms) or one connection, so that a server is seen
// ready within a tenth of a second of it, as wait-on's and wait-port's
// own pollers see it.
const (
	waitInterval = 50 * time.Millisecond
	waitBackoff  = 100 * time.Millisecond
)

// Wait checks until every port has a listener (Ready), the process PID
// is gone first (PIDGone), or the timeout runs out (neither), and then
// says who serves each port now; with Free, until no port has one. Without
// Owned a check is one read of the socket table and no walk of any
// process's descriptors, so that a wait costs next to nothing however long
// it lasts; with HTTP it is also one GET to each port not ready yet, and a
// port once answered is not asked again. PID is watched through a handle
// opened before the first check (a pidfd on Linux), so that a later process
// given the same PID is not taken for it.
//
// A port counts as served by a socket whose holder is out of sight (a
// process of another user, when the caller is not root), so Ready can
// be true while that port's Port is not Ready. The error is for a bad
// spec, a socket table that cannot be read, or a PID that cannot be
// watched.
func (s Spec) Wait() (Result, error) {
	if err := s.Validate(); err != nil {
		return Result{}, err
	}
	s.Ports = sockets.Unique(s.Ports)
	st := waitState{ok: map[uint16]bool{}, tries: map[uint16]attempt{}, targets: s.targets(), web: s.newWeb()}
	var r Result
	var err error
	if r.Ready, r.PIDGone, err = s.poll(&st); err != nil {
		return Result{}, err
	}
	if len(s.Ports) > 0 {
		if r.Ports, err = s.describe(&st); err != nil {
			return Result{}, err
		}
	}
	r.Targets = st.targets
	return r, nil
}

// waitState is what the checks of one wait found: which ports are as
// the wait wants them at the last check, each port's last GET, and the
// HTTP client that sends them.
type waitState struct {
	ok      map[uint16]bool
	tries   map[uint16]attempt
	targets []Target
	web     *web
}

// poll checks the ports until every one is as wanted, PID is gone, or
// the timeout runs out. Its pauses are spent waiting on PID's handle, so
// that an exit ends the wait at once, and the handle is closed by the
// goroutine that polls it, which is this one.
func (s Spec) poll(st *waitState) (ready, gone bool, err error) {
	deadline := time.Now().Add(min(s.Timeout, 100*365*24*time.Hour))
	var h *pidfd.Handle
	if s.PID != 0 {
		h, err = pidfd.Open(proc.Host(), s.PID)
		if errors.Is(err, proc.ErrGone) {
			if s.Free {
				return s.settle(st)
			}
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
		if done, err := s.check(st); err != nil || done {
			return done, false, err
		}
		left := time.Until(deadline)
		if left <= 0 {
			return false, false, nil
		}
		if exitedWithin(h, min(pause, left)) {
			if s.Free {
				return s.settle(st)
			}
			return false, true, nil
		}
		pause = min(pause*3/2, max(waitBackoff, interval))
	}
}

// settle is the last check of a wait for free ports whose PID has
// exited: the sockets it held closed as it exited, before its handle
// said so, so a look now tells whether its exit freed them.
func (s Spec) settle(st *waitState) (ready, gone bool, err error) {
	done, err := s.check(st)
	return done, !done && err == nil, err
}

// check looks once and says whether every port and target is as wanted
// now. A target once ready (as an answered port) is not looked at again:
// it is what was waited for.
func (s Spec) check(st *waitState) (bool, error) {
	done := true
	for i := range st.targets {
		if t := &st.targets[i]; !t.Ready {
			s.checkTarget(st.web, t)
			done = done && t.Ready
		}
	}
	ports, err := s.checkPorts(st)
	return done && ports, err
}

// checkPorts looks at the ports once.
func (s Spec) checkPorts(st *waitState) (bool, error) {
	var want []uint16
	for _, p := range s.Ports {
		// An answer is not asked for again: it is what was waited for.
		if s.HTTP == "" || !st.ok[p] {
			want = append(want, p)
		}
	}
	if len(want) == 0 {
		return true, nil
	}
	var owners []int
	if s.Owned {
		owners = s.owners()
	}
	byPort, err := serving(want, owners, s.Proto)
	if err != nil {
		return false, err
	}
	done := true
	for _, p := range want {
		switch {
		case s.Free:
			st.ok[p] = len(byPort[p]) == 0
		case s.HTTP != "":
			a := s.get(st.web, byPort[p])
			st.tries[p] = a
			st.ok[p] = s.ready(a)
		default:
			st.ok[p] = len(byPort[p]) > 0
		}
		done = done && st.ok[p]
	}
	return done, nil
}

// serving lists the listeners of ports now, by port, of proto ("" for
// any); with owners given, only those that one of those processes holds. Without owners it is one
// read of the socket table and no walk of any process's descriptors: the
// cost of one check of a wait.
func serving(ports []uint16, owners []int, proto string) (map[uint16][]sockets.Listener, error) {
	ls, err := sockets.Listeners(ports...)
	if err != nil {
		return nil, err
	}
	for ino, l := range ls {
		if proto != "" && l.Proto != proto {
			delete(ls, ino)
		}
	}
	if owners != nil {
		hs, err := sockets.HoldersAmong(ls, owners)
		if err != nil {
			return nil, err
		}
		ls = map[uint64]sockets.Listener{}
		for _, h := range hs {
			ls[h.Listener.Inode] = h.Listener
		}
	}
	out := map[uint16][]sockets.Listener{}
	for _, l := range ls {
		out[l.Port] = append(out[l.Port], l)
	}
	return out, nil
}

// exitedWithin waits d, or less when the process of h (if any) exits
// first, and reports whether it did. A zombie has exited: its status is
// its parent's to collect, and it serves no port.
func exitedWithin(h *pidfd.Handle, d time.Duration) bool {
	if h == nil {
		time.Sleep(d)
		return false
	}
	// Exited can come back early without an exit (an interrupted poll):
	// the pause is served whole all the same.
	end := time.Now().Add(d)
	for time.Now().Before(end) {
		if pidfd.Exited([]*pidfd.Handle{h}, end)[0] {
			return true
		}
	}
	return false
}

// owners are PID and its descendants: the processes whose listeners
// count with Owned, read anew at each check since a server may hand its
// socket to a child it starts later.
func (s Spec) owners() []int {
	out := []int{s.PID}
	for _, m := range ptree.Subtree(proc.Host(), s.PID, 0) {
		out = append(out, m.PID)
	}
	return out
}
