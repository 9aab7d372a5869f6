package abandoned

import (
	"time"

	"github.com/tetherproc/tether/procid"
	"github.com/tetherproc/tether/reclaim"
)

// Tree is a stdio tree that its client abandoned: its root was
// reparented (its parent is init, or a user's service manager), its
// standard input has no writer and its standard output no reader left,
// and no member of it talks through its own standard input or output
// with anyone outside it.
type Tree struct {
	Root    procid.ID
	Started time.Time // the root's start; zero when unknown
	// Members are the root and its descendants, the root first.
	Members []Member
	// Ports are the listeners the members hold: a server someone left
	// running on purpose shows here before it is ended.
	Ports []reclaim.Listener
}

// Resident is the tree's resident memory in bytes, as the sum of its
// members' (shared pages count once per member, as ps shows them).
func (a Tree) Resident() uint64 {
	var n uint64
	for _, m := range a.Members {
		n += m.Resident
	}
	return n
}

// IDs are the tree's members' identities.
func (a Tree) IDs() []procid.ID {
	ids := make([]procid.ID, len(a.Members))
	for i, m := range a.Members {
		ids[i] = m.ID
	}
	return ids
}
