package sockets

import (
	"net/netip"
)

// Socket is one line of /proc/net/tcp, tcp6, udp or udp6.
type Socket struct {
	Addr  netip.Addr // local address
	Port  uint16     // local port
	State uint8      // TCP: 0x0A is LISTEN; UDP: 0x07 is unconnected
	UID   int
	Inode uint64
}

// TCP and UDP states that mean "serving this port", as the kernel numbers
// them in these tables and in sock_diag.
const (
	TCPListen      = 0x0A
	UDPUnconnected = 0x07
)
