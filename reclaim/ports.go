package reclaim

import (
	"slices"
	"time"

	"github.com/tetherproc/tether/internal/sockets"
	"github.com/tetherproc/tether/internal/trace"
)

// portStates tells, per port, whether anything serves it, which visible
// processes hold it, and the owners of sockets whose holder is out of sight.
func portStates(ports []uint16, ls map[uint64]Listener, hs []sockets.Holder) []PortState {
	seen := map[uint64]bool{}
	byPort := map[uint16]*PortState{}
	out := make([]PortState, len(ports))
	for i, p := range ports {
		out[i] = PortState{Port: p, Free: true}
		byPort[p] = &out[i]
	}
	for _, h := range hs {
		st := byPort[h.Listener.Port]
		seen[h.Listener.Inode] = true
		if !slices.Contains(st.Holders, h.PID) {
			st.Holders = append(st.Holders, h.PID)
		}
	}
	for ino, l := range ls {
		st := byPort[l.Port]
		st.Free = false
		if !seen[ino] && !slices.Contains(st.Hidden, l.UID) {
			st.Hidden = append(st.Hidden, l.UID)
		}
	}
	for i := range out {
		slices.Sort(out[i].Holders)
		slices.Sort(out[i].Hidden)
	}
	return out
}

// after carries the port states past a reclaim without walking every fd
// table again: the sockets still serving each port are listed anew (one
// cheap netlink dump), and those held by a process that did not end keep
// it as their holder. A socket with no holder left in sight (one that an
// unseen process held too, or one bound while the reclaim ran) counts by
// its owner as hidden: the port is not free.
func after(ports []uint16, proto string, hs []sockets.Holder, results []Result) []PortState {
	ended := map[int]bool{}
	for _, r := range results {
		if r.ended() {
			ended[r.PID] = true
		}
	}
	ls, err := listeners(ports, proto)
	// A socket whose holders all ended can outlive them by a moment: a
	// process is seen gone (a zombie, on the paths without pidfds) while
	// its last thread still releases its descriptors. It is looked at
	// again for up to a second before it is said to be held.
	for deadline := time.Now().Add(time.Second); err == nil && lingering(ls, hs, ended) && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
		ls, err = listeners(ports, proto)
	}
	if err != nil {
		trace.Printf("port states after the reclaim: %v", err)
		ls = map[uint64]Listener{}
	}
	var still []sockets.Holder
	known := map[uint64]bool{}
	for _, h := range hs {
		known[h.Listener.Inode] = true
		if _, open := ls[h.Listener.Inode]; open && !ended[h.PID] {
			still = append(still, h)
		}
	}
	again := retakenAtOnce(ls, known, ended)
	states := portStates(ports, ls, append(still, again...))
	for _, h := range again {
		for i := range states {
			if states[i].Port == h.Listener.Port && !slices.ContainsFunc(states[i].Again, func(r Retaker) bool { return r.PID == h.PID }) {
				states[i].Again = append(states[i].Again, retakerOf(h.PID, 0))
			}
		}
	}
	return states
}

// retakenAtOnce are the holders of the sockets of ls that were bound
// while the reclaim ran (none of known, the sockets seen before it): a
// restart loop or a process manager whose new server took the port before
// it was ever seen free. They are looked up (one walk of the fd tables,
// only then), so that the port is said to be held by them, taken again,
// not by a process out of sight.
func retakenAtOnce(ls map[uint64]Listener, known map[uint64]bool, ended map[int]bool) []sockets.Holder {
	fresh := map[uint64]Listener{}
	for ino, l := range ls {
		if !known[ino] {
			fresh[ino] = l
		}
	}
	if len(fresh) == 0 {
		return nil
	}
	hs, err := sockets.Holders(fresh)
	if err != nil {
		trace.Printf("port states after the reclaim: holders of new sockets: %v", err)
	}
	return slices.DeleteFunc(hs, func(h sockets.Holder) bool { return ended[h.PID] })
}

// listeners are the sockets of proto ("" for any) on ports now.
func listeners(ports []uint16, proto string) (map[uint64]Listener, error) {
	ls, err := sockets.Listeners(ports...)
	return ofProto(ls, proto), err
}

// ofProto keeps the listeners of proto ("" for any).
func ofProto(ls map[uint64]Listener, proto string) map[uint64]Listener {
	if proto == "" {
		return ls
	}
	for ino, l := range ls {
		if l.Proto != proto {
			delete(ls, ino)
		}
	}
	return ls
}

// holdersOfProto keeps the holders of listeners of proto ("" for any).
func holdersOfProto(hs []sockets.Holder, proto string) []sockets.Holder {
	if proto == "" {
		return hs
	}
	return slices.DeleteFunc(hs, func(h sockets.Holder) bool { return h.Listener.Proto != proto })
}

// lingering reports whether a socket of ls was held only by processes
// that ended.
func lingering(ls map[uint64]Listener, hs []sockets.Holder, ended map[int]bool) bool {
	live := map[uint64]bool{}
	for _, h := range hs {
		if !ended[h.PID] {
			live[h.Listener.Inode] = true
		}
	}
	for _, h := range hs {
		if _, open := ls[h.Listener.Inode]; open && ended[h.PID] && !live[h.Listener.Inode] {
			return true
		}
	}
	return false
}

func traceStates(states []PortState) {
	for _, st := range states {
		switch {
		case st.Free:
			trace.Printf("port %d: free", st.Port)
		case len(st.Hidden) > 0:
			trace.Printf("port %d: held by %v and by processes of uid %v out of sight", st.Port, st.Holders, st.Hidden)
		default:
			trace.Printf("port %d: held by %v", st.Port, st.Holders)
		}
	}
}
