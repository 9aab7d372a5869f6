package reclaim

import "github.com/tetherproc/tether/internal/sockets"

// Listener is a socket that serves a port: a listening TCP socket or a
// bound, unconnected UDP socket ("tcp 0.0.0.0:8080"). Its fields, as the
// type is defined inside the module (go doc shows no fields of an
// alias):
//
//	Proto string     // "tcp" or "udp"
//	Addr  netip.Addr // the local address; unspecified for all of them
//	Port  uint16     // the local port
//	UID   int        // the socket's owner
//	Inode uint64     // the inode its holders' fds name
type Listener = sockets.Listener
