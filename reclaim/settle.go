package reclaim

import (
	"context"
	"time"

	"github.com/tetherproc/tether/internal/engines"
	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/ptree"
	"github.com/tetherproc/tether/internal/sockets"
	"github.com/tetherproc/tether/internal/trace"
)

// settleStep is how often a freed port is looked at again.
const settleStep = 20 * time.Millisecond

// restartWatch is how many windows a port is watched for at most while
// the parent of a holder that was ended starts new children: a loop that
// sleeps before it starts the server again (`while :; do ./server;
// sleep 1; done`) takes the port after the window, and its sleep is
// the sign that it will.
const restartWatch = 4

// settle watches the ports that the reclaim freed for window: a port
// that a process takes again (a restart loop, a process manager, a
// restart policy) is held after all, and its new holders are named, each
// with what started it. While a parent of an ended holder (starters) has
// started a child since the reclaim began (since), the watch goes on,
// up to restartWatch windows. Watching costs one socket-table dump a
// step and one read of each starter's children lists; holders are looked
// up only for a port taken again.
func settle(ctx context.Context, states []PortState, freed []uint16, proto string, window time.Duration, starters []starter, since time.Time) {
	if window <= 0 || len(freed) == 0 {
		return
	}
	limit, extended := window, false
	byPort := map[uint16]*PortState{}
	for i := range states {
		byPort[states[i].Port] = &states[i]
	}
	watch := freed
	start := time.Now()
	for len(watch) > 0 {
		if time.Since(start) >= limit {
			if extended || !restarting(starters, time.Since(since)) {
				break
			}
			limit, extended = restartWatch*window, true
			trace.Printf("settle: a starter of an ended holder starts children: watching up to %v", limit)
		}
		select {
		case <-ctx.Done():
			trace.Printf("settle: cut short: %v", ctx.Err())
			return
		case <-time.After(settleStep):
		}
		ls, err := listeners(watch, proto)
		if err != nil {
			trace.Printf("settle: %v", err)
			return
		}
		if len(ls) == 0 {
			continue
		}
		taken := markRetaken(byPort, ls, time.Since(start))
		var still []uint16
		for _, p := range watch {
			if !taken[p] {
				still = append(still, p)
			}
		}
		watch = still
	}
}

// markRetaken marks each port of ls, the listeners found on watched
// ports, as taken again after after: its holders, each once, and what
// started them; its socket's uid where no holder can be seen. It returns
// the ports taken.
func markRetaken(byPort map[uint16]*PortState, ls map[uint64]Listener, after time.Duration) map[uint16]bool {
	taken := map[uint16]bool{}
	for _, l := range ls {
		taken[l.Port] = true
	}
	hs, err := sockets.Holders(ls)
	if err != nil {
		trace.Printf("settle: holders: %v", err)
	}
	for port := range taken {
		st := byPort[port]
		st.Free = false
		seen := map[int]bool{}
		for _, h := range hs {
			if h.Listener.Port != port || seen[h.PID] {
				continue
			}
			seen[h.PID] = true
			st.Holders = append(st.Holders, h.PID)
			st.Again = append(st.Again, retakerOf(h.PID, after))
		}
		if len(st.Again) == 0 {
			for _, l := range ls {
				if l.Port == port {
					st.Hidden = append(st.Hidden, l.UID)
					break
				}
			}
		}
		trace.Printf("settle: port %d taken again after %v by %v", port, after, st.Holders)
	}
	return taken
}

// starter is a process, by PID and start time, that may start a holder
// of a freed port again.
type starter struct {
	pid   int
	start uint64
}

// startersOf are the parents of the ended holders of ports, other than
// PID 1 and other than a process that was itself ended: the processes
// that may start a holder again.
func startersOf(results []Result) []starter {
	ended := map[int]bool{}
	for _, r := range results {
		if r.ended() {
			ended[r.PID] = true
		}
	}
	fs := proc.Host()
	seen := map[int]bool{}
	var out []starter
	for _, r := range results {
		if !r.ended() || len(r.Ports) == 0 || r.PPID <= 1 || ended[r.PPID] || seen[r.PPID] {
			continue
		}
		seen[r.PPID] = true
		if st, err := fs.Stat(r.PPID); err == nil {
			out = append(out, starter{pid: r.PPID, start: st.StartTime})
		}
	}
	return out
}

// restarting reports whether one of starters, still the process it was,
// has a child younger than age: one it started after the reclaim began.
func restarting(starters []starter, age time.Duration) bool {
	fs := proc.Host()
	for _, s := range starters {
		if st, err := fs.Stat(s.pid); err != nil || st.StartTime != s.start {
			continue
		}
		for _, c := range ptree.Children(fs, s.pid) {
			st, err := fs.Stat(c)
			if err != nil {
				continue
			}
			if a, ok := fs.Age(st.StartTime); ok && a <= age {
				return true
			}
		}
	}
	return false
}

// retakerOf describes the new holder pid and what started it.
func retakerOf(pid int, after time.Duration) Retaker {
	fs := proc.Host()
	r := Retaker{PID: pid, After: after}
	r.Command, _ = fs.Cmdline(pid)
	if st, err := fs.Stat(pid); err == nil {
		r.Parent = st.PPID
		if st.PPID > 0 {
			r.ParentCommand, _ = fs.Cmdline(st.PPID)
		}
	}
	r.Manager = engines.Of(pid)
	return r
}
