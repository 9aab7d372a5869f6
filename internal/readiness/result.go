package readiness

import (
	"github.com/tetherproc/tether/internal/kill"
	"github.com/tetherproc/tether/internal/sockets"
	"github.com/tetherproc/tether/probe"
)

// Result is what a [Spec.Wait] found.
type Result struct {
	// Ports says who serves each port now.
	Ports []Port
	// Targets say how each resource besides the ports was found last.
	Targets []Target
	// Ready: every port has a listener and every target is ready (with
	// Free, none has one, and none is).
	Ready bool
	// PIDGone: the process PID was gone first.
	PIDGone bool
}

// Port is one port as a wait leaves it: whether a listener on it is in
// sight, and whose, so that a caller can say what is ready or name what
// is missing.
type Port struct {
	Port uint16
	// Ready says that the port is as the wait wants it: a process in
	// sight holds a listener on it; with HTTP, one of its TCP listeners
	// answered the GET with a status of Accept; with Free, nothing of
	// Proto serves it.
	Ready bool
	// Listeners are the port's listeners that Holders hold, each socket
	// once, however many processes share it (forked workers).
	Listeners []sockets.Listener
	// Holders are the processes that hold them, whoever they are, each
	// with its verdict; with Owned, only PID and its descendants.
	Holders []Holder
	// Others, with Owned, are the processes in sight that hold a
	// listener on the port and are not PID or its descendants: a server
	// left from before, say, which is not the one waited for.
	Others []Holder
	// Free says that no socket serves the port, in sight or out of it.
	Free bool
	// HiddenOwners are the owners (uids) of sockets on the port whose
	// holding process is out of sight (another user's, when the caller is
	// not root): the port is held, by no one the caller can name.
	HiddenOwners []int
	// URL, HTTPStatus and HTTPError are the last GET of a wait with HTTP:
	// where it went, the status it was answered with (0 for none), and
	// why there was no answer, or no GET at all.
	URL        string
	HTTPStatus int
	HTTPError  string
}

// Holder is a process that holds a listener of a port waited for, with
// its verdict under the protocol's own markers: the fields of a holder
// that tether ps and reclaim find.
type Holder struct {
	probe.Report
	// Ports are every listener it holds, of any port.
	Ports []sockets.Listener
	// Protected says why it is never signalled (PID 1, the caller or an
	// ancestor of it): "" for any other process.
	Protected kill.Protection
}
