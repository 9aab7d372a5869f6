package reclaim

import (
	"fmt"
	"net/netip"
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
