package readiness

import "net/netip"

// endpoint is where a check connects: a TCP address, or a unix
// socket's path.
type endpoint struct {
	tcp  netip.AddrPort
	unix string
}

func (e endpoint) String() string {
	if e.unix != "" {
		return e.unix
	}
	return e.tcp.String()
}
