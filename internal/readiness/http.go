package readiness

import (
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/tetherproc/tether/internal/hosts"
	"github.com/tetherproc/tether/internal/sockets"
)

// httpTry is how long one GET of a wait may take when HTTPTimeout does
// not say, connection included. A local health check answers in
// milliseconds; one that takes longer is not ready, and the next check
// asks again. It is not cut to the time left before the timeout, so that
// a last check (or the one check of a zero timeout) is a fair one: a
// wait can end up to one try after its timeout.
const httpTry = time.Second

// maxRedirects is how many redirects one check follows, as browsers and
// curl --max-redirs do about: a loop of them is not ready.
const maxRedirects = 10

// attempt is one check of an HTTP server: where its last GET went, and
// its status or why none.
type attempt struct {
	url      string
	status   int
	err      string
	location string
}

// ready reports whether the answer is one the wait takes as ready.
func (s Spec) ready(a attempt) bool {
	return a.status != 0 && a.err == "" && s.Accept.Has(a.status)
}

func (s Spec) tryLimit() time.Duration {
	if s.HTTPTimeout > 0 {
		return s.HTTPTimeout
	}
	return httpTry
}

// get asks each TCP listener of a port in turn, IPv4 first, until one
// answers as ready, and returns that answer or the last one. Two
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
		last = s.fetch(URL{Host: a.String(), Port: ls[0].Port, Path: s.HTTP})
		if s.ready(last) {
			break
		}
	}
	return last
}

// fetch sends GET to u and follows its redirects (unless NoFollow), up
// to maxRedirects: the answer at the end is the one that counts.
func (s Spec) fetch(u URL) attempt {
	for hops := 0; ; hops++ {
		a := s.getOnce(u)
		if a.status < 300 || a.status > 399 || a.err != "" || s.NoFollow {
			return a
		}
		if a.location == "" {
			a.err = fmt.Sprintf("a %d with no Location to follow", a.status)
			return a
		}
		if hops == maxRedirects {
			a.err = fmt.Sprintf("more than %d redirects", maxRedirects)
			return a
		}
		next, err := u.follow(a.location)
		if err != nil {
			a.err = fmt.Sprintf("redirected to %q: %v", cut(a.location, 80), err)
			return a
		}
		u = next
	}
}

// follow is the URL a Location header leads to from u.
func (u URL) follow(loc string) (URL, error) {
	switch {
	case strings.HasPrefix(loc, "http://"), strings.HasPrefix(loc, "https://"):
		return ParseURL(loc)
	case strings.HasPrefix(loc, "//") && u.TLS:
		return ParseURL("https:" + loc)
	case strings.HasPrefix(loc, "//"):
		return ParseURL("http:" + loc)
	case strings.HasPrefix(loc, "/"):
		u.Path = loc
	default:
		dir, _, _ := strings.Cut(u.Path, "?")
		u.Path = path.Join(path.Dir(dir+"x"), loc)
		if strings.HasSuffix(loc, "/") && !strings.HasSuffix(u.Path, "/") {
			u.Path += "/"
		}
	}
	if err := checkPath(u.Path); err != nil {
		return URL{}, err
	}
	return u, nil
}

// getOnce sends GET to u, at each of its host's addresses in turn until
// one answers, and reads the status line and headers of the answer and
// nothing more: the status (and a redirect's Location) is all a wait
// wants to know, and the body can be anything, endless included.
func (s Spec) getOnce(u URL) attempt {
	if u.TLS {
		return s.getTLS(u)
	}
	a := attempt{url: u.String()}
	limit := s.tryLimit()
	deadline := time.Now().Add(limit)
	host := "localhost"
	var eps []endpoint
	if u.Socket != "" {
		eps = []endpoint{{unix: u.Socket}}
	} else {
		host = hostPort(u.Host, u.Port)
		addrs, err := hosts.Resolve(u.Host, limit)
		if err != nil {
			a.err = err.Error()
			return a
		}
		for _, ad := range addrs {
			eps = append(eps, endpoint{tcp: netip.AddrPortFrom(ad, u.Port)})
		}
	}
	req := "GET " + u.Path + " HTTP/1.1\r\nHost: " + host + "\r\nUser-Agent: tether-wait\r\nAccept: */*\r\nConnection: close\r\n\r\n"
	var head string
	var err error
	for _, ep := range eps {
		if head, err = exchange(ep, []byte(req), deadline); err == nil {
			break
		}
	}
	if err != nil {
		a.err = connError(err, limit)
		return a
	}
	line, headers, _ := strings.Cut(head, "\n")
	a.status, err = statusOf(strings.TrimRight(line, "\r"))
	if err != nil {
		a.err = err.Error()
		return a
	}
	for _, h := range strings.Split(headers, "\n") {
		k, v, _ := strings.Cut(strings.TrimRight(h, "\r"), ":")
		if strings.EqualFold(strings.TrimSpace(k), "location") {
			a.location = strings.TrimSpace(v)
		}
	}
	return a
}

// connError says why a connection or its exchange failed, in a few
// words: the errno's text, or that the time ran out.
func connError(err error, limit time.Duration) string {
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return "no answer within " + limit.String()
	}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno.Error()
	}
	return err.Error()
}
