package readiness

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"slices"
	"strconv"
	"syscall"
	"time"

	"github.com/tetherproc/tether/internal/sockets"
)

// httpTry is how long one GET of a wait may take when HTTPTimeout does
// not say, connection and redirects included. A local health check
// answers in milliseconds; one that takes longer is not ready, and the
// next check asks again. It is not cut to the time left before the
// timeout, so that a last check (or the one check of a zero timeout) is
// a fair one: a wait can end up to one try after its timeout.
const httpTry = time.Second

// maxRedirects is how many redirects one check follows, as browsers and
// curl --max-redirs do about: a loop of them is not ready.
const maxRedirects = 10

// attempt is one check of an HTTP server: where its last GET went, and
// its status or why none.
type attempt struct {
	url    string
	status int
	err    string
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

// web is the HTTP client of one wait. A URL on a unix socket is sent to
// a made-up host under .invalid (RFC 6761: never a real one), which the
// dialer alone turns into the socket, so that a redirect within that
// server stays on its socket and one to a real host leaves it.
type web struct {
	client *http.Client
	socket map[string]string // made-up host → the socket's path
	host   map[string]string // the socket's path → its made-up host
}

// newWeb builds the client of a wait: no proxy (HTTP_PROXY is not
// read: the request is for this server), no connection kept (each check
// is a fresh GET, whose body is never read), TLS verified unless
// Insecure, and redirects followed up to maxRedirects unless NoFollow.
func (s Spec) newWeb() *web {
	w := &web{socket: map[string]string{}, host: map[string]string{}}
	for _, u := range s.URLs {
		if _, ok := w.host[u.Socket]; u.Socket != "" && !ok {
			h := "unix-" + strconv.Itoa(len(w.host)) + ".tether.invalid"
			w.host[u.Socket], w.socket[h] = h, u.Socket
		}
	}
	tr := &http.Transport{
		Proxy:              nil,
		DialContext:        w.dial,
		TLSClientConfig:    &tls.Config{InsecureSkipVerify: s.Insecure},
		DisableKeepAlives:  true,
		DisableCompression: true,
	}
	w.client = &http.Client{Transport: tr, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		switch {
		case s.NoFollow:
			return http.ErrUseLastResponse
		case len(via) > maxRedirects:
			return fmt.Errorf("more than %d redirects", maxRedirects)
		}
		return nil
	}}
	return w
}

// dial connects to addr: a made-up host's socket, localhost's loopback
// addresses (as [LookupHost] has them), else what the resolver says.
func (w *web) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	d := &net.Dialer{Resolver: resolver}
	host, port, err := net.SplitHostPort(addr)
	switch {
	case err != nil:
		return nil, err
	case w.socket[host] != "":
		return d.DialContext(ctx, "unix", w.socket[host])
	case isLocalhost(host):
		var c net.Conn
		for _, a := range []string{"127.0.0.1", "::1"} {
			if c, err = d.DialContext(ctx, network, net.JoinHostPort(a, port)); err == nil {
				return c, nil
			}
		}
		return nil, err
	}
	return d.DialContext(ctx, network, addr)
}

// name is a URL as the wait writes it: a made-up host's as its socket's.
func (w *web) name(u *url.URL) string {
	if p, ok := w.socket[u.Hostname()]; ok {
		return URL{Socket: p, Path: u.RequestURI()}.String()
	}
	return u.String()
}

// get asks each TCP listener of a port in turn, IPv4 first, until one
// answers as ready, and returns that answer or the last one. Two
// sockets on one address (SO_REUSEPORT) are one place to ask.
func (s Spec) get(w *web, ls []sockets.Listener) attempt {
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
		// An address in the URL: the GET goes to that socket only.
		last = s.fetch(w, URL{Host: a.String(), Port: ls[0].Port, Path: s.HTTP})
		if s.ready(last) {
			break
		}
	}
	return last
}

// fetch sends GET to u and follows its redirects (unless NoFollow): the
// answer at the end is the one that counts. Only the status is read:
// the body can be anything, endless included.
func (s Spec) fetch(w *web, u URL) attempt {
	a := attempt{url: u.String()}
	target := a.url
	if u.Socket != "" {
		target = "http://" + w.host[u.Socket] + u.Path
	}
	limit := s.tryLimit()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		a.err = err.Error()
		return a
	}
	if u.Socket != "" {
		req.Host = "localhost"
	}
	req.Header.Set("User-Agent", "tether-wait")
	req.Header.Set("Accept", "*/*")
	resp, err := w.client.Do(req)
	var ue *url.Error
	if errors.As(err, &ue) {
		if at, perr := url.Parse(ue.URL); perr == nil {
			a.url = w.name(at)
		}
	}
	if resp != nil {
		a.url, a.status = w.name(resp.Request.URL), resp.StatusCode
		resp.Body.Close()
		if err == nil && !s.NoFollow && a.status >= 300 && a.status <= 399 && resp.Header.Get("Location") == "" {
			a.err = fmt.Sprintf("a %d with no Location to follow", a.status)
		}
	}
	if err != nil {
		a.err = reason(err, limit)
	}
	return a
}

// reason says why a connection or a GET failed, in a few words: that
// the time ran out, the name that could not be looked up, the errno's
// text, or the library's own words.
func reason(err error, limit time.Duration) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	var dns *net.DNSError
	var errno syscall.Errno
	switch {
	case errors.As(err, &dns):
		return fmt.Sprintf("look up host %q: %s", dns.Name, dns.Err)
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded):
		return "no answer within " + limit.String()
	case errors.As(err, &errno):
		return errno.Error()
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "connection closed with no answer"
	}
	return err.Error()
}
