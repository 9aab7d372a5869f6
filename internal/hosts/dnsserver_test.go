package hosts

import (
	"net"
	"net/netip"
	"testing"
)

// startDNS serves, on a loopback UDP port, A answers of addr for
// svc.test and NXDOMAIN for anything else, until the test ends; it
// returns the port.
func startDNS(t *testing.T, addr netip.Addr) uint16 {
	t.Helper()
	c, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Skipf("no loopback UDP: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	go func() {
		buf := make([]byte, 512)
		for {
			n, from, err := c.ReadFromUDP(buf)
			if err != nil {
				return
			}
			q := append([]byte{}, buf[:n]...)
			q[2] |= 0x80
			// The name is the question's, from offset 12 to its end.
			name, i := "", 12
			for i < len(q) && q[i] != 0 {
				name += string(q[i+1:i+1+int(q[i])]) + "."
				i += 1 + int(q[i])
			}
			qtype := uint16(q[i+1])<<8 | uint16(q[i+2])
			switch {
			case name != "svc.test.":
				q[3] = 3
			case qtype == typeA:
				q[7] = 1
				a := addr.As4()
				q = append(q, 0xc0, 12, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, a[0], a[1], a[2], a[3])
			}
			_, _ = c.WriteToUDP(q, from)
		}
	}()
	return uint16(c.LocalAddr().(*net.UDPAddr).Port)
}
