package readiness

import (
	"errors"
	"net/netip"
	"os"
	"slices"
	"syscall"
	"time"

	"github.com/tetherproc/tether/internal/sockets"
)

// httpTry is how long one GET of a wait with HTTP may take, connection
// included. A local health check answers in milliseconds; one that takes
// longer is not ready, and the next check asks again. It is not cut to
// the time left before the timeout, so that a last check (or the one
// check of a zero timeout) is a fair one: a wait can end up to httpTry
// after its timeout.
const httpTry = time.Second

// attempt is one GET: where it went, and its status or why none.
type attempt struct {
	url    string
	status int
	err    string
}

// get asks each TCP listener of a port in turn, IPv4 first, until one
// answers below Status, and returns that answer or the last one. Two
// sockets on one address (SO_REUSEPORT) are one place to ask.
func (s Spec) get(ls []sockets.Listener) attempt {
	var addrs []netip.Addr
	for _, l := range ls {
		if l.Proto != "tcp" {
			continue
		}
		a := l.Addr
		if a.IsUnspecified() && a.Is4() {
			a = netip.AddrFrom4([4]byte{127, 0, 0, 1})
		} else if a.IsUnspecified() {
			a = netip.IPv6Loopback()
		}
		if !slices.Contains(addrs, a) {
			addrs = append(addrs, a)
		}
	}
	slices.SortFunc(addrs, func(a, b netip.Addr) int { return a.Compare(b) })
	if len(addrs) == 0 && len(ls) > 0 {
		return attempt{err: "no TCP listener to send the GET to (UDP only)"}
	}
	var last attempt
	for _, a := range addrs {
		last = httpGet(netip.AddrPortFrom(a, ls[0].Port), s.HTTP)
		if last.status != 0 && last.status < s.Status {
			break
		}
	}
	return last
}

// httpGet sends GET path to the socket at to, and reads the status line
// of the answer and nothing more: the status is all a wait wants to
// know, and the body can be anything, endless included.
func httpGet(to netip.AddrPort, path string) attempt {
	a := attempt{url: "http://" + to.String() + path}
	req := "GET " + path + " HTTP/1.1\r\nHost: " + to.String() + "\r\nUser-Agent: tether-wait\r\nAccept: */*\r\nConnection: close\r\n\r\n"
	line, err := exchange(to, []byte(req), time.Now().Add(httpTry))
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		a.err = "no answer within " + httpTry.String()
	case err != nil:
		var errno syscall.Errno
		if errors.As(err, &errno) {
			a.err = errno.Error()
		} else {
			a.err = err.Error()
		}
	default:
		a.status, err = statusOf(line)
		if err != nil {
			a.err = err.Error()
		}
	}
	return a
}
