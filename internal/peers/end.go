package peers

import "errors"

// ErrUnsupported is Look's answer where the other ends of a process's
// descriptors cannot be asked about: every platform but Linux
// (Supported says so without a call).
var ErrUnsupported = errors.New("peers: not supported on this platform")

// ErrGone is Look's answer for a process that has exited, or a
// descriptor it has closed: nothing to talk through. Any other error is
// a descriptor that is there but cannot be read (another user's, a
// process that made itself undumpable): unknown, never gone.
var ErrGone = errors.New("peers: no such process or descriptor")

// Kind is what a standard descriptor is.
type Kind int

const (
	// Other is a file, the null device or anything else with no other
	// end to lose.
	Other Kind = iota
	// Terminal is a character device that is a terminal's: a person is
	// at the other end.
	Terminal
	// Pipe is a pipe or a FIFO.
	Pipe
	// UnixSocket is a Unix-domain socket (a socketpair, as Node's
	// child_process makes a child's stdio).
	UnixSocket
	// OtherSocket is a socket of another family (TCP, as inetd hands
	// one over).
	OtherSocket
)

// End is one of a process's standard descriptors, as looked at once.
type End struct {
	Kind       Kind
	Dev, Inode uint64 // the pipe's or socket's device and inode
	// Known says that HungUp was read from the kernel. It is false for
	// what cannot be read (another user's pipe, a socket of another
	// family or network namespace) and for kinds with no other end.
	Known bool
	// HungUp: for an input, no writer of it is left; for an output, no
	// reader.
	HungUp bool
	// Peer is a Unix socket's peer's inode; 0 when it has none or for a
	// pipe.
	Peer uint64
}

// Talkable reports whether e is a pipe or a socket: an end that a
// client at the other end talks through.
func (e End) Talkable() bool {
	return e.Kind == Pipe || e.Kind == UnixSocket || e.Kind == OtherSocket
}
