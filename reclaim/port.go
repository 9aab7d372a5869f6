package reclaim

import (
	"fmt"
	"net/netip"
	"slices"
	"strconv"
)

// ParsePort parses a port given on a command line: 1 to 65535.
func ParsePort(s string) (uint16, error) {
	n, err := strconv.ParseUint(s, 10, 64)
	switch {
	case err != nil && len(s) > 0 && s[0] == '-':
		return 0, fmt.Errorf("invalid port %q: must be 1-65535", s)
	case err != nil:
		return 0, fmt.Errorf("invalid port %q: not a number", s)
	case n == 0 || n > 65535:
		return 0, fmt.Errorf("invalid port %q: must be 1-65535", s)
	}
	return uint16(n), nil
}

// Listener is a socket that serves a port: a listening TCP socket or a
// bound, unconnected UDP socket.
type Listener struct {
	Proto string     `json:"proto"` // tcp or udp
	Addr  netip.Addr `json:"addr"`
	Port  uint16     `json:"port"`
	UID   int        `json:"-"` // the socket's owner
	Inode uint64     `json:"-"`
}

func (l Listener) String() string {
	return l.Proto + " " + netip.AddrPortFrom(l.Addr, l.Port).String()
}

// Holder is a process that holds a listener.
type Holder struct {
	PID      int
	Listener Listener
}

// PortState is what serves one port: whether anything does, and the
// processes seen holding it. A port can be held with no holder in sight:
// another user's process, whose fd table cannot be read.
type PortState struct {
	Port    uint16 `json:"port"`
	Free    bool   `json:"free"`
	Holders []int  `json:"holders,omitempty"`
	// Hidden are the owners (uids) of sockets on the port whose holding
	// process could not be seen.
	Hidden []int `json:"hidden_owners,omitempty"`
}

// Holders returns the processes that serve any of the ports, over TCP or
// UDP, IPv4 or IPv6, in this network namespace.
func Holders(ports []uint16) ([]Holder, error) {
	_, hs, err := lookupPorts(ports)
	return hs, err
}

// PortStates looks the ports up now.
func PortStates(ports []uint16) ([]PortState, error) {
	ls, hs, err := lookupPorts(ports)
	if err != nil {
		return nil, err
	}
	return portStates(ports, ls, hs), nil
}

// lookupPorts reads the sockets that serve the ports and the processes
// that hold them: the one walk of every fd table that port lookups make.
func lookupPorts(ports []uint16) (map[uint64]Listener, []Holder, error) {
	want := map[uint16]bool{}
	for _, p := range ports {
		want[p] = true
	}
	ls, err := listeners(want)
	if err != nil {
		return nil, nil, err
	}
	return ls, holders(ls), nil
}

// portStates tells, per port, whether anything serves it, which visible
// processes hold it, and the owners of sockets whose holder is out of sight.
func portStates(ports []uint16, ls map[uint64]Listener, hs []Holder) []PortState {
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
