package reclaim

import (
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/tetherproc/tether/internal/trace"
)

// Listener is a socket that serves a port: a listening TCP socket or a
// bound, unconnected UDP socket.
type Listener struct {
	Proto string     `json:"proto"` // tcp or udp
	Addr  netip.Addr `json:"addr"`  // the local address; unspecified for all of them
	Port  uint16     `json:"port"`  // the local port
	UID   int        `json:"-"`     // the socket's owner
	Inode uint64     `json:"-"`     // the socket's inode, which its holders' fds name
}

// String is how the listener reads in a report: "tcp 0.0.0.0:8080".
func (l Listener) String() string {
	return l.Proto + " " + netip.AddrPortFrom(l.Addr, l.Port).String()
}

// holder is a process that holds a listener.
type holder struct {
	pid      int
	listener Listener
}

// PortState is what serves one port: whether anything does, and the
// processes seen holding it. A port can be held with no holder in sight:
// another user's process, whose fd table cannot be read.
type PortState struct {
	Port    uint16 `json:"port"`
	Free    bool   `json:"free"`              // nothing serves it, in sight or out of it
	Holders []int  `json:"holders,omitempty"` // the PIDs seen holding it
	// Hidden are the owners (uids) of sockets on the port whose holding
	// process could not be seen.
	Hidden []int `json:"hidden_owners,omitempty"`
	// Left says, for a port that is held after a reclaim (or would be
	// after a dry run), each holder left and why: "PID 42: foreign: …".
	Left []string `json:"left,omitempty"`
}

// lookupPorts reads the sockets that serve the ports and the processes
// that hold them: the one walk of every fd table that a port lookup makes.
func lookupPorts(ports []uint16) (map[uint64]Listener, []holder, error) {
	want := map[uint16]bool{}
	for _, p := range ports {
		want[p] = true
	}
	ls, err := listeners(want)
	if err != nil {
		return nil, nil, err
	}
	hs, err := holders(ls, nil)
	return ls, hs, err
}

// portStates tells, per port, whether anything serves it, which visible
// processes hold it, and the owners of sockets whose holder is out of sight.
func portStates(ports []uint16, ls map[uint64]Listener, hs []holder) []PortState {
	seen := map[uint64]bool{}
	byPort := map[uint16]*PortState{}
	out := make([]PortState, len(ports))
	for i, p := range ports {
		out[i] = PortState{Port: p, Free: true}
		byPort[p] = &out[i]
	}
	for _, h := range hs {
		st := byPort[h.listener.Port]
		seen[h.listener.Inode] = true
		if !slices.Contains(st.Holders, h.pid) {
			st.Holders = append(st.Holders, h.pid)
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
func after(ports []uint16, hs []holder, results []Result) []PortState {
	ended := map[int]bool{}
	for _, r := range results {
		if r.ended() {
			ended[r.PID] = true
		}
	}
	want := map[uint16]bool{}
	for _, p := range ports {
		want[p] = true
	}
	ls, err := listeners(want)
	if err != nil {
		trace.Printf("port states after the reclaim: %v", err)
		ls = map[uint64]Listener{}
	}
	var still []holder
	for _, h := range hs {
		if _, open := ls[h.listener.Inode]; open && !ended[h.pid] {
			still = append(still, h)
		}
	}
	return portStates(ports, ls, still)
}

// PortRefusal is why [FreePorts] did not free a port: what still holds
// it once every holder that could be ended was, and why it was left.
type PortRefusal struct {
	Port uint16 // the port that was not freed
	// Holder is the process holding the port, when it can be seen.
	Holder *Process
	// Why is the holder's verdict or the reason it was not selected,
	// and Reason its kind ([Result.Reason]).
	Why    string
	Reason Reason
	// HiddenUIDs are the owners of sockets on the port whose process
	// cannot be seen (another user's, when tether is not root).
	HiddenUIDs []int
	// Result is the failed termination of a selected holder.
	Result *Result
	// Signalled counts the processes that were signalled before the
	// refusal, holders of this port or of another: 0 means nothing was.
	Signalled int
}

// Error says which port, held by whom, and why it was left alone.
func (e *PortRefusal) Error() string {
	done := "nothing was signalled"
	if e.Signalled > 0 {
		done = fmt.Sprintf("%d other holder(s) ended", e.Signalled)
	}
	switch {
	case e.Result != nil:
		return fmt.Sprintf("port %d: holder PID %d not ended: %s %s", e.Port, e.Result.PID, e.Result.Outcome, e.Result.Why)
	case e.Holder != nil:
		return fmt.Sprintf("port %d is held by PID %d: %s; %s", e.Port, e.Holder.PID, e.Why, done)
	}
	uids := make([]string, len(e.HiddenUIDs))
	for i, u := range e.HiddenUIDs {
		uids[i] = strconv.Itoa(u)
	}
	return fmt.Sprintf("port %d is held by a process of uid %s that tether cannot see; %s", e.Port, strings.Join(uids, ", "), done)
}
