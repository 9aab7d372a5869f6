package abandoned

import (
	"errors"
	"os"
	"slices"

	"github.com/tetherproc/tether/internal/peers"
	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/ptree"
	"github.com/tetherproc/tether/procid"
)

// Listing is what [Find] found.
type Listing struct {
	Trees   []Tree
	LeftOut []LeftOut
}

// ErrUnsupported is Find's error where the other ends
// of a process's standard input and output cannot be asked about (every
// platform but Linux).
var ErrUnsupported = errors.New("finding abandoned stdio trees is not supported on this platform")

// Find lists the abandoned stdio trees of the caller's user
// (every user's with anyUser; another user's pipes can be read by root
// alone, and are left out as EndsUnknown otherwise). It looks once at every
// process's parent, then only at the reparented ones' descriptors.
func Find(anyUser bool) (Listing, error) {
	if !peers.Supported {
		return Listing{}, ErrUnsupported
	}
	fs := proc.Host()
	snap, err := ptree.ReadSnapshot(fs)
	if err != nil {
		return Listing{}, err
	}
	l := &looker{fs: fs, snap: snap, uid: os.Getuid(), anyUser: anyUser, protected: protectedPIDs(fs)}
	var out Listing
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
	slices.SortFunc(out.Trees, func(a, b Tree) int { return a.Root.PID - b.Root.PID })
	addPorts(fs, out.Trees)
	return out, nil
}
