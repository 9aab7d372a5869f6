package sockets

import (
	"net/netip"
)

// Listener is a socket that serves a port: a listening TCP socket or a
// bound, unconnected UDP socket. A connected client's socket is never
// one, whatever its local port.
type Listener struct {
	Proto string     // tcp or udp
	Addr  netip.Addr // the local address; unspecified for all of them
	Port  uint16     // the local port
	UID   int        // the socket's owner
	// Inode names the socket: the inode its holders' fds name on Linux,
	// a key of the kernel's socket on macOS.
	Inode uint64
}

// String is how the listener reads in a report: "tcp 0.0.0.0:8080".
func (l Listener) String() string {
	return l.Proto + " " + netip.AddrPortFrom(l.Addr, l.Port).String()
}
