package reclaim

import (
	"context"
	"os"
	"syscall"
	"time"

	"github.com/tetherproc/tether/internal/kill"
	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/runtree"
	"github.com/tetherproc/tether/procid"
)

// AbandonedEnd is what became of one tree [EndAbandoned] was given.
type AbandonedEnd struct {
	Tree Abandoned
	// Ended: every member is gone.
	Ended bool
	// NoLonger, when not zero, is why the tree was not signalled: looked
	// at again, it is no longer abandoned (a client holds its other end
	// again, say) or can no longer be told to be.
	NoLonger AbandonedWhy
	// Gone: the tree had ended by itself before it was looked at again.
	Gone bool
	// Left are the members still alive after SIGKILL, or when ctx ended.
	Left []procid.ID
}

// EndAbandoned ends the trees that FindAbandoned listed, each whole:
// every member is held by a handle (a pidfd on Linux) opened before its
// tree is looked at again, and only a tree still abandoned then is
// signalled, through those handles: sig, then grace, then SIGKILL. What
// its members started meanwhile is ended with it. The end of ctx hurries
// the grace to its KILL.
func EndAbandoned(ctx context.Context, trees []Abandoned, sig syscall.Signal, grace time.Duration) []AbandonedEnd {
	fs := proc.Host()
	out := make([]AbandonedEnd, len(trees))
	handles := map[procid.ID]*proc.Handle{}
	defer func() {
		for _, h := range handles {
			h.Close()
		}
	}()
	var ending []int
	for i, t := range trees {
		out[i].Tree = t
		held := holdAll(fs, t.IDs(), handles)
		if len(held) == 0 {
			out[i].Gone, out[i].Ended = true, true
			continue
		}
		if why := stillAbandoned(fs, t.Root); why != 0 {
			out[i].NoLonger = why
			continue
		}
		ending = append(ending, i)
	}
	if len(ending) == 0 {
		return out
	}
	list := func() ([]proc.Member, bool) { return membersNow(fs, trees, ending), false }
	send := func(m proc.Member, s syscall.Signal) error {
		if h, ok := handles[m]; ok {
			return h.Signal(s)
		}
		return kill.Signal(m, s)
	}
	runtree.Tree{What: "abandoned stdio trees", Sources: []runtree.Source{runtree.SourceFunc(list)}, Signal: sig, Send: send}.End(ctx, grace)
	for _, i := range ending {
		out[i].Left = fs.Living(membersNow(fs, trees, []int{i}))
		out[i].Ended = len(out[i].Left) == 0
	}
	return out
}

// holdAll opens a handle on each of ids still alive as itself (its start
// time read after the handle was opened), into handles, and returns the
// ones held.
func holdAll(fs proc.FS, ids []procid.ID, handles map[procid.ID]*proc.Handle) []procid.ID {
	var held []procid.ID
	for _, id := range ids {
		h, err := fs.Open(id.PID)
		if err != nil {
			continue
		}
		if st, err := fs.Stat(id.PID); err != nil || st.StartTime != id.StartTime || st.Zombie() {
			h.Close()
			continue
		}
		handles[id] = h
		held = append(held, id)
	}
	return held
}

// stillAbandoned looks at the tree of root again, from a new snapshot:
// 0 when it still is abandoned, otherwise why not.
func stillAbandoned(fs proc.FS, root procid.ID) AbandonedWhy {
	snap, err := fs.Snapshot()
	if err != nil {
		return Unknown
	}
	p, ok := snap.Process(root.PID)
	if !ok || p.StartTime != root.StartTime {
		return Unknown
	}
	l := &looker{fs: fs, snap: snap, uid: os.Getuid(), anyUser: true, protected: protectedPIDs(fs)}
	_, why, ok := l.tree(p)
	if !ok {
		return Unknown
	}
	return why
}

// membersNow are the live members of the trees at idx: those listed,
// and what their roots have below them now.
func membersNow(fs proc.FS, trees []Abandoned, idx []int) []proc.Member {
	var ms []proc.Member
	for _, i := range idx {
		ms = append(ms, trees[i].IDs()...)
		if fs.Alive(trees[i].Root) {
			ms = append(ms, fs.Subtree(trees[i].Root.PID, 0)...)
		}
	}
	return fs.Living(proc.Unique(ms))
}
