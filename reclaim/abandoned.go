package reclaim

import (
	"errors"
	"os"
	"slices"
	"time"

	"github.com/tetherproc/tether/internal/peers"
	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/ptree"
	"github.com/tetherproc/tether/procid"
)

// An MCP server (or a language server, or any stdio server) is started
// by its client with pipes or a socket for its standard input and
// output, and talked to through them alone. A client that dies without
// closing them cleanly, or drops the server without ending it, leaves
// a tree (npm exec, sh, node, maybe a browser) that nobody can talk to
// any more, reparented to init: tether never started it, so it carries
// no marker, and pkill by name would end the live sessions' servers too.
// What tells the abandoned tree from a live one is the kernel's own
// count of the other ends: no writer of its input, no reader of its
// output (package peers).

// Abandoned is a stdio tree that its client abandoned: its root was
// reparented (its parent is init, or a user's service manager), its
// standard input has no writer and its standard output no reader left,
// and no member of it talks through its own standard input or output
// with anyone outside it.
type Abandoned struct {
	Root    procid.ID
	Started time.Time // the root's start; zero when unknown
	// Members are the root and its descendants, the root first.
	Members []TreeMember
	// Ports are the listeners the members hold: a server someone left
	// running on purpose shows here before it is ended.
	Ports []Listener
}

// TreeMember is one process of an [Abandoned] tree.
type TreeMember struct {
	procid.ID
	PPID     int
	UID      int
	Comm     string
	Command  []string // empty when it cannot be read
	Resident uint64   // resident memory in bytes; 0 when unknown
}

// Resident is the tree's resident memory in bytes, as the sum of its
// members' (shared pages count once per member, as ps shows them).
func (a Abandoned) Resident() uint64 {
	var n uint64
	for _, m := range a.Members {
		n += m.Resident
	}
	return n
}

// IDs are the tree's members' identities.
func (a Abandoned) IDs() []procid.ID {
	ids := make([]procid.ID, len(a.Members))
	for i, m := range a.Members {
		ids[i] = m.ID
	}
	return ids
}

// AbandonedWhy is why a reparented process with pipes or sockets for
// its standard input and output was left out of the selection.
type AbandonedWhy int

const (
	// LivePeer: something outside the tree still writes its input or
	// reads its output (a live session's server, a pipeline's stage).
	LivePeer AbandonedWhy = iota + 1
	// EndsUnknown: the other ends could not be read (another user's pipe, a
	// socket of another family or network namespace, a process in the
	// middle of an execve): never taken as gone.
	EndsUnknown
	// ManagedTree: a container engine or a service manager runs it.
	ManagedTree
	// OnTerminal: a member has a terminal for its input or output.
	OnTerminal
	// MemberProtected: a member is PID 1, tether itself or its ancestor.
	MemberProtected
	// MemberOtherUser: a member is another user's, and other users' were not
	// asked for.
	MemberOtherUser
	// RootChanged: looked at again before its end, its root had exited
	// or its input or output had been replaced; what is left of it is
	// looked at anew the next time.
	RootChanged
)

// LeftOut is a reparented stdio tree that was looked at and not
// selected, and why.
type LeftOut struct {
	Root procid.ID
	Comm string
	Why  AbandonedWhy
}

// AbandonedListing is what [FindAbandoned] found.
type AbandonedListing struct {
	Trees   []Abandoned
	LeftOut []LeftOut
}

// ErrAbandonedUnsupported is FindAbandoned's error where the other ends
// of a process's standard input and output cannot be asked about (every
// platform but Linux).
var ErrAbandonedUnsupported = errors.New("finding abandoned stdio trees is not supported on this platform")

// FindAbandoned lists the abandoned stdio trees of the caller's user
// (every user's with anyUser; another user's pipes can be read by root
// alone, and are left out as EndsUnknown otherwise). It looks once at every
// process's parent, then only at the reparented ones' descriptors.
func FindAbandoned(anyUser bool) (AbandonedListing, error) {
	if !peers.Supported {
		return AbandonedListing{}, ErrAbandonedUnsupported
	}
	fs := proc.Host()
	snap, err := ptree.ReadSnapshot(fs)
	if err != nil {
		return AbandonedListing{}, err
	}
	l := &looker{fs: fs, snap: snap, uid: os.Getuid(), anyUser: anyUser, protected: protectedPIDs(fs)}
	var out AbandonedListing
	for _, root := range l.roots() {
		tree, why, ok := l.tree(root)
		switch {
		case !ok:
		case why != 0:
			out.LeftOut = append(out.LeftOut, LeftOut{Root: procid.ID{PID: root.PID, StartTime: root.StartTime}, Comm: root.Comm, Why: why})
		default:
			out.Trees = append(out.Trees, tree)
		}
	}
	slices.SortFunc(out.Trees, func(a, b Abandoned) int { return a.Root.PID - b.Root.PID })
	addPorts(fs, out.Trees)
	return out, nil
}
