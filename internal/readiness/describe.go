package readiness

import (
	"cmp"
	"slices"
	"strings"

	"github.com/tetherproc/tether/internal/kill"
	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/sockets"
	"github.com/tetherproc/tether/internal/trace"
	"github.com/tetherproc/tether/probe"
)

// describe says who serves each port now, whoever it is (with Owned,
// only PID and its descendants count), each socket once however many
// processes share it, and carries over what the checks found: one look
// at the sockets and their holders, and one check of each holder.
func (s Spec) describe(st *waitState) ([]Port, error) {
	// The holders are named by the PIDs this /proc shows.
	if err := proc.Host().CheckOwn(); err != nil {
		return nil, err
	}
	ls, hs, err := sockets.Lookup(s.Ports...)
	if err != nil {
		return nil, err
	}
	if s.Proto != "" {
		for ino, l := range ls {
			if l.Proto != s.Proto {
				delete(ls, ino)
			}
		}
		hs = slices.DeleteFunc(hs, func(h sockets.Holder) bool { return h.Listener.Proto != s.Proto })
	}
	slices.SortStableFunc(hs, func(a, b sockets.Holder) int { return a.PID - b.PID })
	holders, err := checkHolders(hs)
	if err != nil {
		return nil, err
	}
	var owners []int
	if s.Owned {
		owners = s.owners()
	}
	out := make([]Port, len(s.Ports))
	for i, port := range s.Ports {
		out[i] = s.portOf(port, ls, hs, holders, owners, st)
	}
	return out, nil
}

// checkHolders checks each process of hs once, under the protocol's own
// markers, and lists every listener it holds, of any port.
func checkHolders(hs []sockets.Holder) (map[int]Holder, error) {
	out := map[int]Holder{}
	var pids []int
	protected := kill.Protected(proc.Host())
	for _, h := range hs {
		if _, ok := out[h.PID]; ok {
			continue
		}
		r, err := probe.Check(h.PID, probe.Query{})
		if err != nil {
			return nil, err
		}
		out[h.PID] = Holder{Report: r, Protected: protected[h.PID]}
		pids = append(pids, h.PID)
	}
	all, err := sockets.Listeners()
	if err == nil {
		var held []sockets.Holder
		held, err = sockets.HoldersAmong(all, pids)
		for _, h := range held {
			p := out[h.PID]
			p.Ports = append(p.Ports, h.Listener)
			out[h.PID] = p
		}
	}
	if err != nil {
		trace.Printf("wait: the holders' other ports not shown: %v", err)
	}
	return out, nil
}

// portOf is describe for one port: its listeners and holders in sight,
// each once, the owners of sockets on it out of sight, and whether it is
// ready as the wait asked.
func (s Spec) portOf(port uint16, ls map[uint64]sockets.Listener, hs []sockets.Holder, holders map[int]Holder, owners []int, st *waitState) Port {
	seen := map[uint64]bool{}
	r := Port{Port: port}
	for _, h := range hs {
		l := h.Listener
		if l.Port != port {
			continue
		}
		// A socket in sight, held by the tree or not, is not hidden.
		seen[l.Inode] = true
		if owners != nil && !slices.Contains(owners, h.PID) {
			if !slices.ContainsFunc(r.Others, func(q Holder) bool { return q.PID == h.PID }) {
				r.Others = append(r.Others, holders[h.PID])
			}
			continue
		}
		if !slices.ContainsFunc(r.Listeners, func(m sockets.Listener) bool { return m.Inode == l.Inode }) {
			r.Listeners = append(r.Listeners, l)
		}
		if !slices.ContainsFunc(r.Holders, func(q Holder) bool { return q.PID == h.PID }) {
			r.Holders = append(r.Holders, holders[h.PID])
		}
	}
	slices.SortStableFunc(r.Listeners, func(a, b sockets.Listener) int {
		return cmp.Or(strings.Compare(a.Proto, b.Proto), a.Addr.Compare(b.Addr))
	})
	r.Free = true
	for ino, l := range ls {
		if l.Port != port {
			continue
		}
		r.Free = false
		if !seen[ino] && !slices.Contains(r.HiddenOwners, l.UID) {
			r.HiddenOwners = append(r.HiddenOwners, l.UID)
		}
	}
	slices.Sort(r.HiddenOwners)
	switch {
	case s.Free, s.HTTP != "":
		r.Ready = st.ok[port]
	default:
		// A socket out of sight is a listener all the same, unless
		// only PID's count: whose it is cannot be told.
		r.Ready = len(r.Listeners) > 0 || owners == nil && len(r.HiddenOwners) > 0
	}
	if a, ok := st.tries[port]; ok {
		r.URL, r.HTTPStatus, r.HTTPError = a.url, a.status, a.err
	}
	return r
}
