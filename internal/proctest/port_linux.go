package proctest

import (
	"io"
	"math/rand/v2"
	"net"
	"strconv"
	"sync"
	"testing"
)

// FreePort finds a port of network (tcp, tcp4, udp, udp4) that nothing
// serves now, between lo and hi, and hands it out once in the test
// binary. Take lo and hi below the kernel's ephemeral range (32768 and
// up), from which every listener on port 0 and every client connection
// takes theirs, and apart from the ranges of the other packages' tests
// that run beside these: a port found free in the ephemeral range can be
// another test's listener a moment later.
func FreePort(t testing.TB, network string, lo, hi int) int {
	t.Helper()
	handedOut.Lock()
	defer handedOut.Unlock()
	for try := 0; try < 1000; try++ {
		port := lo + rand.IntN(hi-lo+1)
		if handedOut.ports[port] {
			continue
		}
		var c io.Closer
		var err error
		if network == "udp" || network == "udp4" || network == "udp6" {
			c, err = net.ListenPacket(network, ":"+strconv.Itoa(port))
		} else {
			c, err = net.Listen(network, ":"+strconv.Itoa(port))
		}
		if err == nil {
			c.Close()
			handedOut.ports[port] = true
			return port
		}
	}
	t.Fatalf("no free %s port between %d and %d", network, lo, hi)
	return 0
}

var handedOut = struct {
	sync.Mutex
	ports map[int]bool
}{ports: map[int]bool{}}
