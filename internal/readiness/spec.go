package readiness

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Spec is what [Spec.Wait] waits for: the ports a server that was just
// started must listen on before it can be used, and the process whose
// death means it never will.
type Spec struct {
	// Ports must each have a listener of Proto, IPv4 or IPv6.
	Ports []uint16
	// PID, when not 0, is the server (or the tether run that started
	// it): once it has exited, a zombie included, the wait ends at once
	// instead of at the timeout.
	PID int
	// Owned counts only a listener held by PID or one of its
	// descendants, so that a program already on a port is not taken for
	// the server being waited for. It needs PID.
	Owned bool
	// Timeout is how long to wait for; 0 checks once, [NoLimit] waits
	// until ready or PID is gone.
	Timeout time.Duration
	// Interval is the first pause between two checks (0 is 50ms); each
	// next one is half as long again, up to 100ms or Interval, whichever
	// is longer.
	Interval time.Duration
	// Free turns the wait around: every port must have no listener left,
	// in sight or out of it (a server stopped, before the next one binds
	// its ports). When PID exits the ports are looked at once more, and
	// the wait ends as ready if they are free then, as PIDGone if not:
	// its exit is what a wait for a free port is usually waiting for.
	// It takes neither Owned nor HTTP.
	Free bool
	// HTTP, when not "", is the path (a query may follow) of a GET that
	// must be answered on each port: a listener is not ready until a
	// request to its own address answers with a status of Accept. The
	// request goes to that one socket's address (a wildcard address is
	// asked on the loopback: 127.0.0.1 or ::1), through no proxy, over
	// TCP only: a port with only UDP listeners is never ready. Redirects
	// are followed as for URLs.
	HTTP string
	// Accept are the statuses that are ready, for HTTP and URLs: nil is
	// [Success], 2xx.
	Accept Statuses
	// NoFollow takes a redirect's status as the answer instead of
	// following it (up to ten).
	NoFollow bool
	// HTTPTimeout is how long one GET may take, connection included: 0 is
	// one second.
	HTTPTimeout time.Duration
	// Insecure accepts an https server's certificate that does not
	// verify (a dev server's self-signed one).
	Insecure bool
	// Proto is the kind of socket that counts on Ports: "tcp" (a
	// listening TCP socket), "udp" (a bound UDP socket) or "" for either.
	Proto string
	// Remote are TCP ports of other hosts, ready when a connection is
	// accepted; with Free, when none is.
	Remote []Remote
	// URLs must each answer a GET with a status of Accept.
	URLs []URL
	// Sockets are unix sockets that must accept a connection; with Free,
	// that must not.
	Sockets []string
	// Files must exist (a directory does not count); with Free, must be
	// gone.
	Files []string
}

// NoLimit is a Timeout that never runs out.
const NoLimit = time.Duration(1<<63 - 1)

// Validate reports a spec that cannot be waited for, naming the bad
// value: what Wait refuses before it looks at anything.
func (s Spec) Validate() error {
	switch {
	case len(s.Ports)+len(s.Remote)+len(s.URLs)+len(s.Sockets)+len(s.Files) == 0:
		return errors.New("nothing to wait for: no port, URL, socket or file given")
	case slices.Contains(s.Ports, 0):
		return errors.New("invalid port \"0\": must be 1-65535")
	case s.PID < 0:
		return fmt.Errorf("invalid PID %d: must be positive, or 0 for none", s.PID)
	case s.Owned && s.PID == 0:
		return errors.New("owned listeners asked for with no PID: Owned needs the process whose listeners count")
	case s.Timeout < 0:
		return fmt.Errorf("invalid timeout %v: negative", s.Timeout)
	case s.Interval < 0:
		return fmt.Errorf("invalid interval %v: negative", s.Interval)
	case s.Free && s.Owned:
		return errors.New("free ports asked for with Owned: a free port has no listener to own")
	case s.Free && s.HTTP != "":
		return fmt.Errorf("free ports asked for with the HTTP path %q: a free port has no listener to answer", s.HTTP)
	case s.Free && len(s.URLs) > 0:
		return fmt.Errorf("free asked for with the URL %s: a wait for a URL is a wait for its answer", s.URLs[0])
	case s.Accept != nil && s.HTTP == "" && len(s.URLs) == 0:
		return fmt.Errorf("statuses %s asked for with no HTTP path or URL", s.Accept)
	case s.Proto != "" && s.Proto != "tcp" && s.Proto != "udp":
		return fmt.Errorf("invalid protocol %q: tcp, udp or \"\" for either", s.Proto)
	case s.HTTPTimeout < 0:
		return fmt.Errorf("invalid HTTP timeout %v: negative", s.HTTPTimeout)
	}
	for _, r := range s.Remote {
		if r.Port == 0 {
			return fmt.Errorf("invalid port \"0\" of %s: must be 1-65535", r.Host)
		}
	}
	if s.HTTP != "" {
		return checkPath(s.HTTP)
	}
	return nil
}

// checkPath accepts what may follow the port in a request line: an
// absolute path and its query, in printable ASCII with no space (a
// request line is split at its spaces).
func checkPath(p string) error {
	if !strings.HasPrefix(p, "/") {
		return fmt.Errorf("invalid HTTP path %q: must start with / (as /health)", p)
	}
	for i := 0; i < len(p); i++ {
		if p[i] <= ' ' || p[i] >= 0x7f || p[i] == '#' {
			return fmt.Errorf("invalid HTTP path %q: %q at %d (write it %%-encoded)", p, p[i], i)
		}
	}
	return nil
}
