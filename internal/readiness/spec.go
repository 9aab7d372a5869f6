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
	// Ports must each have a listener: a listening TCP socket or a bound
	// UDP one, IPv4 or IPv6.
	Ports []uint16
	// PID, when not 0, is the server (or the tether run that started
	// it): once it has exited, a zombie included, the wait ends at once
	// instead of at the timeout.
	PID int
	// Owned counts only a listener held by PID or one of its
	// descendants, so that a program already on a port is not taken for
	// the server being waited for. It needs PID.
	Owned bool
	// Timeout is how long to wait for; 0 checks once.
	Timeout time.Duration
	// Interval is the first pause between two checks (0 is 50ms); each
	// next one is half as long again, up to 250ms or Interval, whichever
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
	// request to its own address answers with a status below Status. The
	// request goes to that one socket's address and no other (a wildcard
	// address is asked on the loopback: 127.0.0.1 or ::1), through no
	// proxy, with no redirect followed (a 3xx is its status), over TCP
	// only: a port with only UDP listeners is never ready. Each GET is
	// given 1s.
	HTTP string
	// Status is, with HTTP, the first status that is not ready: 0 is 500,
	// so that any answer but a server error is; else 100 to 999.
	Status int
}

// Validate reports a spec that cannot be waited for, naming the bad
// value: what Wait refuses before it looks at anything.
func (s Spec) Validate() error {
	switch {
	case len(s.Ports) == 0:
		return errors.New("nothing to wait for: no port given")
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
	case s.Status != 0 && s.HTTP == "":
		return fmt.Errorf("status %d asked for with no HTTP path: Status needs HTTP", s.Status)
	case s.Status != 0 && (s.Status < 100 || s.Status > 999):
		return fmt.Errorf("invalid status %d: must be 100-999", s.Status)
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
