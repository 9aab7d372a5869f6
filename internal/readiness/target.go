package readiness

import (
	"errors"
	"io/fs"
	"net"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Remote is a TCP port at a host that is not this machine (a compose
// service, a VM, another machine): its socket table cannot be read, so
// it is ready when a connection to it is accepted.
type Remote struct {
	Host string // as written: a name, or an address without brackets
	Port uint16
}

func (r Remote) String() string { return hostPort(r.Host, r.Port) }

// Target is one resource besides this machine's ports as a wait leaves
// it: a remote TCP port, an http URL, a unix socket or a file.
type Target struct {
	Kind string // "tcp", "http", "socket" or "file"
	Name string // as written: db:5432, the URL, the path
	// Ready says that it is as the wait wants it: a connection accepted,
	// an answer with an accepted status, a file there (with Free: none
	// accepted, no file).
	Ready bool
	// Detail is what the last check found: where a connection was made,
	// the status and the URL it came from, or why not.
	Detail     string
	HTTPStatus int

	remote Remote
	url    URL
}

// targets lists the resources of s other than its ports, each not yet
// checked.
func (s Spec) targets() []Target {
	var out []Target
	for _, r := range s.Remote {
		out = append(out, Target{Kind: "tcp", Name: r.String(), remote: r})
	}
	for _, u := range s.URLs {
		out = append(out, Target{Kind: "http", Name: u.String(), url: u})
	}
	for _, p := range s.Sockets {
		out = append(out, Target{Kind: "socket", Name: p})
	}
	for _, p := range s.Files {
		out = append(out, Target{Kind: "file", Name: p})
	}
	return out
}

// connectTry is how long one connection to a remote port or a socket
// may take.
const connectTry = time.Second

// accepts reports, as an error, whether a connection to addr is made
// within connectTry: nil when it is.
func accepts(network, addr string) error {
	c, err := net.DialTimeout(network, addr, connectTry)
	if err != nil {
		return err
	}
	return c.Close()
}

// checkRemote connects to each address of a remote port's host in turn,
// IPv4 first, until one accepts. A name known nowhere is a port that
// refuses, for Free: the service is gone.
func (s Spec) checkRemote(t *Target) {
	addrs, err := LookupHost(t.remote.Host, connectTry)
	if err != nil {
		t.Ready, t.Detail = s.Free && notFound(err), reason(err, connectTry)
		return
	}
	var why string
	for _, a := range addrs {
		to := netip.AddrPortFrom(a, t.remote.Port)
		if err := accepts("tcp", to.String()); err != nil {
			why = to.String() + ": " + reason(err, connectTry)
			continue
		}
		t.Ready, t.Detail = !s.Free, "accepted at "+to.String()
		return
	}
	t.Ready, t.Detail = s.Free, why
}

// checkTarget looks at t once and records what it found.
func (s Spec) checkTarget(w *web, t *Target) {
	switch t.Kind {
	case "tcp":
		s.checkRemote(t)
	case "socket":
		if err := accepts("unix", t.Name); err != nil {
			t.Ready, t.Detail = s.Free, reason(err, connectTry)
			return
		}
		t.Ready, t.Detail = !s.Free, "accepted"
	case "file":
		fi, err := os.Stat(t.Name)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			t.Ready, t.Detail = s.Free, "not there"
		case err != nil:
			var errno syscall.Errno
			why := err.Error()
			if errors.As(err, &errno) {
				why = errno.Error()
			}
			t.Ready, t.Detail = false, why
		case fi.IsDir():
			t.Ready, t.Detail = false, "a directory, not a file"
		default:
			t.Ready, t.Detail = !s.Free, "there"
		}
	case "http":
		a := s.fetch(w, t.url)
		t.HTTPStatus, t.Ready = a.status, s.ready(a)
		switch {
		case a.err != "" && a.status != 0:
			t.Detail = a.err + " (" + a.url + " answered " + strconv.Itoa(a.status) + ")"
		case a.err != "":
			t.Detail = a.err
		case a.url != t.Name:
			t.Detail = "GET " + a.url + " answered " + strconv.Itoa(a.status)
		default:
			t.Detail = "answered " + strconv.Itoa(a.status)
		}
		if !t.Ready && a.err == "" {
			t.Detail += ", not " + s.Accept.String()
		}
	}
	t.Detail = strings.TrimSpace(t.Detail)
}
