package reclaim

import (
	"cmp"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/tetherproc/tether/internal/proc"
)

// The pauses between two checks of a wait: the first is short, so that
// a server that is quick to listen is seen at once; they grow by half
// each time up to waitBackoff, so that one that takes seconds costs a
// few checks a second and no more.
const (
	waitInterval = 50 * time.Millisecond
	waitBackoff  = 250 * time.Millisecond
)

// httpTry is how long one GET of a wait with HTTP may take, connection
// included. A local health check answers in milliseconds; one that takes
// longer is not ready, and the next check asks again. It is not cut to
// the time left before the timeout, so that a last check (or the one
// check of a zero timeout) is a fair one: a wait can end up to httpTry
// after its timeout.
const httpTry = time.Second

// WaitSpec is what [WaitSpec.Wait] waits for: the ports a server that
// was just started must listen on before it can be used, and the process
// whose death means it never will. It is the question behind tether
// wait, for a Go program that starts its own servers.
type WaitSpec struct {
	// Ports must each have a listener: a listening TCP socket or a bound
	// UDP one, IPv4 or IPv6, found as Filter.Ports finds them.
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
	// the wait ends as ready if they are free then, as pidGone if not:
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

// Readiness is one port as a wait leaves it: whether a listener on it is
// in sight, and whose, so that a caller can say what is ready or name
// what is missing.
type Readiness struct {
	Port uint16 `json:"port"`
	// Ready says that the port is as the wait wants it: a process in
	// sight holds a listener on it; with HTTP, one of its TCP listeners
	// answered the GET below Status; with Free, nothing serves it.
	Ready bool `json:"ready"`
	// Listeners are the port's listeners that Holders hold, each socket
	// once, however many processes share it (forked workers).
	Listeners []Listener `json:"listeners,omitempty"`
	// Holders are the processes that hold them, whoever they are, each
	// with its verdict; with Owned, only PID and its descendants.
	Holders []Process `json:"holders,omitempty"`
	// Free says that no socket serves the port, in sight or out of it.
	Free bool `json:"free"`
	// HiddenOwners are the owners (uids) of sockets on the port whose
	// holding process is out of sight (another user's, when the caller is
	// not root): the port is held, by no one the caller can name.
	HiddenOwners []int `json:"hidden_owners,omitempty"`
	// URL, HTTPStatus and HTTPError are the last GET of a wait with HTTP:
	// where it went, the status it was answered with (0 for none), and
	// why there was no answer, or no GET at all.
	URL        string `json:"url,omitempty"`
	HTTPStatus int    `json:"http_status,omitempty"`
	HTTPError  string `json:"http_error,omitempty"`
}

// WaitResult is what a [WaitSpec.Wait] found.
type WaitResult struct {
	// Ports says who serves each port now.
	Ports []Readiness
	// Ready: every port has a listener (with Free, none has one).
	Ready bool
	// PIDGone: the process PID was gone first.
	PIDGone bool
}

// Wait checks until every port has a listener (Ready), the process PID
// is gone first (PIDGone), or the timeout runs out (neither), and then
// says who serves each port now; with Free, until no port has one. Without
// Owned a check is one read of the socket table and no walk of any
// process's descriptors, so that a wait costs next to nothing however long
// it lasts; with HTTP it is also one GET to each port not ready yet, and a
// port once answered is not asked again. PID is watched through a handle
// opened before the first check (a pidfd on Linux), so that a later process
// given the same PID is not taken for it.
//
// A port counts as served by a socket whose holder is out of sight (a
// process of another user, when the caller is not root), so Ready can
// be true while that port's Readiness is not Ready. The error is for a
// bad spec, a socket table that cannot be read, or a PID that cannot be
// watched.
func (s WaitSpec) Wait() (WaitResult, error) {
	if err := s.Validate(); err != nil {
		return WaitResult{}, err
	}
	s.Ports = unique(s.Ports)
	if s.HTTP != "" && s.Status == 0 {
		s.Status = 500
	}
	st := waitState{ok: map[uint16]bool{}, tries: map[uint16]attempt{}}
	var r WaitResult
	var err error
	if r.Ready, r.PIDGone, err = s.poll(&st); err != nil {
		return WaitResult{}, err
	}
	if r.Ports, err = s.describe(&st); err != nil {
		return WaitResult{}, err
	}
	return r, nil
}

// Validate reports a spec that cannot be waited for, naming the bad
// value: what Wait refuses before it looks at anything.
func (s WaitSpec) Validate() error {
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

// waitState is what the checks of one wait found: which ports are as
// the wait wants them at the last check, and each port's last GET.
type waitState struct {
	ok    map[uint16]bool
	tries map[uint16]attempt
}

// attempt is one GET: where it went, and its status or why none.
type attempt struct {
	url    string
	status int
	err    string
}

// poll checks the ports until every one is as wanted, PID is gone, or
// the timeout runs out. Its pauses are spent waiting on PID's handle, so
// that an exit ends the wait at once, and the handle is closed by the
// goroutine that polls it, which is this one.
func (s WaitSpec) poll(st *waitState) (ready, gone bool, err error) {
	deadline := time.Now().Add(s.Timeout)
	var h *proc.Handle
	if s.PID != 0 {
		h, err = proc.Host().Open(s.PID)
		if errors.Is(err, proc.ErrGone) {
			if s.Free {
				return s.settle(st)
			}
			return false, true, nil
		} else if err != nil {
			return false, false, fmt.Errorf("watch PID %d: %w", s.PID, err)
		}
		defer h.Close()
	}
	interval := s.Interval
	if interval == 0 {
		interval = waitInterval
	}
	pause := interval
	for {
		if done, err := s.check(st); err != nil || done {
			return done, false, err
		}
		left := time.Until(deadline)
		if left <= 0 {
			return false, false, nil
		}
		if exitedWithin(h, min(pause, left)) {
			if s.Free {
				return s.settle(st)
			}
			return false, true, nil
		}
		pause = min(pause*3/2, max(waitBackoff, interval))
	}
}

// settle is the last check of a wait for free ports whose PID has
// exited: the sockets it held closed as it exited, before its handle
// said so, so a look now tells whether its exit freed them.
func (s WaitSpec) settle(st *waitState) (ready, gone bool, err error) {
	done, err := s.check(st)
	return done, !done && err == nil, err
}

// check looks once and says whether every port is as wanted now.
func (s WaitSpec) check(st *waitState) (bool, error) {
	var want []uint16
	for _, p := range s.Ports {
		// An answer is not asked for again: it is what was waited for.
		if s.HTTP == "" || !st.ok[p] {
			want = append(want, p)
		}
	}
	if len(want) == 0 {
		return true, nil
	}
	var owners []int
	if s.Owned {
		owners = s.owners()
	}
	if s.HTTP == "" && !s.Free {
		got, err := served(want, owners)
		for _, p := range want {
			st.ok[p] = got[p]
		}
		return err == nil && len(got) == len(want), err
	}
	byPort, err := serving(want, owners)
	if err != nil {
		return false, err
	}
	done := true
	for _, p := range want {
		if s.Free {
			st.ok[p] = len(byPort[p]) == 0
		} else {
			a := s.get(byPort[p])
			st.tries[p] = a
			st.ok[p] = a.status != 0 && a.status < s.Status
		}
		done = done && st.ok[p]
	}
	return done, nil
}

// served tells which of ports have a listener now, as Filter.Ports finds
// them. With owners given, only a listener that one of those processes
// holds counts. Without owners it is one read of the socket table and no
// walk of any process's descriptors: the cost of one check of a wait.
func served(ports []uint16, owners []int) (map[uint16]bool, error) {
	byPort, err := serving(ports, owners)
	if err != nil {
		return nil, err
	}
	out := map[uint16]bool{}
	for p := range byPort {
		out[p] = true
	}
	return out, nil
}

// serving lists the listeners of ports now, by port; with owners given,
// only those that one of those processes holds.
func serving(ports []uint16, owners []int) (map[uint16][]Listener, error) {
	want := map[uint16]bool{}
	for _, p := range ports {
		want[p] = true
	}
	ls, err := listeners(want)
	if err != nil {
		return nil, err
	}
	if owners != nil {
		hs, err := holders(ls, owners)
		if err != nil {
			return nil, err
		}
		ls = map[uint64]Listener{}
		for _, h := range hs {
			ls[h.listener.Inode] = h.listener
		}
	}
	out := map[uint16][]Listener{}
	for _, l := range ls {
		out[l.Port] = append(out[l.Port], l)
	}
	return out, nil
}

// get asks each TCP listener of a port in turn, IPv4 first, until one
// answers below Status, and returns that answer or the last one. Two
// sockets on one address (SO_REUSEPORT) are one place to ask.
func (s WaitSpec) get(ls []Listener) attempt {
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

// statusOf reads the status of an HTTP/1.x status line: "HTTP/1.1 200 OK".
func statusOf(line string) (int, error) {
	proto, rest, _ := strings.Cut(line, " ")
	code, _, _ := strings.Cut(rest, " ")
	n, err := strconv.Atoi(code)
	if !strings.HasPrefix(proto, "HTTP/1.") || len(code) != 3 || err != nil || n < 100 {
		return 0, fmt.Errorf("not an HTTP/1 answer: %q", cut(line, 40))
	}
	return n, nil
}

func cut(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// exitedWithin waits d, or less when the process of h (if any) exits
// first, and reports whether it did. A zombie has exited: its status is
// its parent's to collect, and it serves no port.
func exitedWithin(h *proc.Handle, d time.Duration) bool {
	if h == nil {
		time.Sleep(d)
		return false
	}
	// Exited can come back early without an exit (an interrupted poll):
	// the pause is served whole all the same.
	end := time.Now().Add(d)
	for time.Now().Before(end) {
		if proc.Exited([]*proc.Handle{h}, end)[0] {
			return true
		}
	}
	return false
}

// owners are PID and its descendants: the processes whose listeners
// count with Owned, read anew at each check since a server may hand its
// socket to a child it starts later.
func (s WaitSpec) owners() []int {
	out := []int{s.PID}
	for _, m := range proc.Host().Subtree(s.PID, 0) {
		out = append(out, m.PID)
	}
	return out
}

// describe says who serves each port now, whoever it is (with Owned,
// only PID and its descendants count), each socket once however many
// processes share it, and carries over what the checks found.
func (s WaitSpec) describe(st *waitState) ([]Readiness, error) {
	want := map[uint16]bool{}
	for _, p := range s.Ports {
		want[p] = true
	}
	ls, err := listeners(want)
	if err != nil {
		return nil, err
	}
	procs, err := List(Filter{Ports: s.Ports, AnyUser: true})
	if err != nil {
		return nil, err
	}
	var owners []int
	if s.Owned {
		owners = s.owners()
	}
	out := make([]Readiness, len(s.Ports))
	for i, port := range s.Ports {
		out[i] = s.readinessOf(port, procs, owners, ls, st)
	}
	return out, nil
}

// readinessOf is describe for one port: its listeners and holders in
// sight, each once, the owners of sockets on it out of sight, and
// whether it is ready as the wait asked.
func (s WaitSpec) readinessOf(port uint16, procs []Process, owners []int, ls map[uint64]Listener, st *waitState) Readiness {
	seen := map[uint64]bool{}
	r := Readiness{Port: port}
	for _, p := range procs {
		for _, l := range p.Ports {
			if l.Port != port {
				continue
			}
			// A socket in sight, held by the tree or not, is not hidden.
			seen[l.Inode] = true
			if owners != nil && !slices.Contains(owners, p.PID) {
				continue
			}
			if !slices.ContainsFunc(r.Listeners, func(m Listener) bool { return m.Inode == l.Inode }) {
				r.Listeners = append(r.Listeners, l)
			}
			if !slices.ContainsFunc(r.Holders, func(q Process) bool { return q.PID == p.PID }) {
				r.Holders = append(r.Holders, p)
			}
		}
	}
	slices.SortStableFunc(r.Listeners, func(a, b Listener) int {
		return cmp.Or(strings.Compare(a.Proto, b.Proto), a.Addr.Compare(b.Addr))
	})
	r.Free = true
	for ino, l := range ls {
		if l.Port != port {
			continue
		}
		r.Free = false
		if !seen[ino] && !slices.Contains(r.HiddenOwners, l.UID) {
			r.HiddenOwners = append(r.HiddenOwners, l.UID)
		}
	}
	slices.Sort(r.HiddenOwners)
	switch {
	case s.Free, s.HTTP != "":
		r.Ready = st.ok[port]
	default:
		r.Ready = len(r.Listeners) > 0
	}
	if a, ok := st.tries[port]; ok {
		r.URL, r.HTTPStatus, r.HTTPError = a.url, a.status, a.err
	}
	return r
}
