//go:build linux || darwin

package callerchain

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/trace"
	"github.com/tetherproc/tether/marker"
	"github.com/tetherproc/tether/procid"
)

// maxChain bounds the walk up the caller's chain: a deeper one is cut
// there (the watch still covers its nearest ancestors).
const maxChain = 64

// stops tell the processes where the walk up the caller's chain ends,
// not included: those whose death would not end the session tether runs
// in, but would hand its orphans to a reaper that outlives it.
type stops struct {
	// supervisor is the tether run tether itself runs in, from its own
	// markers: a child subreaper that ends its tree when its command
	// ends.
	supervisor procid.ID
}

// ownStops reads what the walk must know of tether's own environment.
func ownStops() stops {
	var s stops
	v, ok := os.LookupEnv(marker.SupervisorVar)
	if !ok {
		return s
	}
	if id, err := procid.Parse(v); err == nil {
		s.supervisor.PID, s.supervisor.StartTime = id.PID, id.StartTime
	}
	return s
}

// stopsAt reports whether the walk ends before st, and why. The kernel
// keeps the child-subreaper flag to each process, so a subreaper is
// known by what can be seen of it from outside: PID 1 (of any
// namespace: its parent is 0 from inside), systemd (the system's and
// every user's, both subreapers), the tether run tether runs in, and a
// daemon, a session leader with no terminal started by one of those
// (sshd, tmux's server, cron, a CI runner's service), which would be
// restarted without ending the sessions it made.
func (s stops) stopsAt(st proc.Stat, parent func() (proc.Stat, error)) (bool, string) {
	switch {
	case st.PID <= 1:
		return true, "init"
	case st.Comm == "systemd":
		return true, "systemd, a child subreaper"
	case s.supervisor.PID == st.PID && s.supervisor.StartTime == st.StartTime:
		return true, "the tether run tether runs in"
	case st.Session == st.PID && st.TTY == 0:
		if st.PPID <= 1 {
			return true, "a daemon started by init"
		}
		if p, err := parent(); err == nil && p.Comm == "systemd" {
			return true, "a daemon started by systemd"
		}
	}
	return false, ""
}

// callerChain lists the ancestors tether follows beyond its parent:
// from the parent's parent up to, not including, where the walk stops.
// The parent itself is followed apart (the parent-death signal, or the
// platform's own watch), also when its own parent is where the walk
// stops.
func callerChain(fs proc.FS, s stops, ppid int) ([]procid.ID, error) {
	if ppid <= 1 {
		return nil, nil
	}
	st, err := fs.Stat(ppid)
	if err != nil {
		// Hidden (hidepid) or gone: the parent's own tie, armed
		// apart, covers it; there is no chain to read.
		trace.Printf("caller's chain not followed: parent %d cannot be read: %v", ppid, err)
		return nil, nil
	}
	if stop, why := s.stopsAt(st, func() (proc.Stat, error) { return fs.Stat(st.PPID) }); stop {
		trace.Printf("caller's chain ends at the parent %d (%s): followed alone", ppid, why)
		return nil, nil
	}
	var chain []procid.ID
	// Each process is read once: the one above, read to tell a daemon,
	// is the next one up.
	var next *proc.Stat
	for len(chain) < maxChain {
		if st.PPID <= 1 {
			trace.Printf("caller's chain ends at init")
			break
		}
		var up proc.Stat
		if next != nil && next.PID == st.PPID {
			up = *next
		} else if up, err = fs.Stat(st.PPID); err != nil {
			// Hidden (hidepid: another user's) or gone meanwhile:
			// the chain is followed up to here.
			trace.Printf("caller's chain ends below %d, which cannot be read: %v", st.PPID, err)
			break
		}
		next = nil
		parent := func() (proc.Stat, error) {
			p, err := fs.Stat(up.PPID)
			if err == nil {
				next = &p
			}
			return p, err
		}
		if stop, why := s.stopsAt(up, parent); stop {
			trace.Printf("caller's chain ends at %d (%s): not followed", up.PID, why)
			break
		}
		chain = append(chain, procid.ID{PID: up.PID, StartTime: up.StartTime})
		st = up
	}
	return chain, nil
}

// chainIntact reports whether every ancestor of chain is still the same
// process and still the parent of the one below it, from the parent
// ppid up: an ancestor that died before its watch was set up broke a
// link (its child went to a reaper), or is gone itself.
func chainIntact(fs proc.FS, ppid int, chain []procid.ID) bool {
	// A parent's PID is that of a live process, the same one while the
	// child's link to it holds: one that died has its children
	// reparented, whatever its PID became. So each link is checked from
	// below, and the watch, set up first, catches every death after.
	if len(chain) == 0 {
		return true
	}
	below := ppid
	for _, m := range chain {
		st, err := fs.Stat(below)
		if err != nil || st.PPID != m.PID {
			return false
		}
		below = m.PID
	}
	if _, err := fs.Stat(below); err != nil {
		return false
	}
	return true
}

// describeChain names the chain for the trace.
func describeChain(chain []procid.ID) string {
	pids := make([]string, len(chain))
	for i, m := range chain {
		pids[i] = strconv.Itoa(m.PID)
	}
	return strings.Join(pids, " ")
}

// ErrGone says a process of the caller's chain, the parent included,
// died before it could be followed: its death was missed, and the
// caller is to act as if it had seen it.
var ErrGone = errors.New("parent died before it could be followed")

// Follow follows the caller's chain beyond the parent ppid: gone is
// called once any of it dies. One dead already is ErrGone. stop, never
// nil, ends the watch.
func Follow(ppid int, gone func()) (stop func(), err error) {
	chain, err := callerChain(proc.Host(), ownStops(), ppid)
	if err != nil {
		return func() {}, fmt.Errorf("follow the caller's chain: %w", err)
	}
	stop, err = watchChain(chain, ppid, gone)
	if err != nil {
		return func() {}, err
	}
	if len(chain) > 0 {
		trace.Printf("following the caller's chain: %s", describeChain(chain))
	}
	return stop, nil
}
