package abandoned

import (
	"context"
	"errors"
	"os"
	"syscall"

	"github.com/tetherproc/tether/internal/kill"
	"github.com/tetherproc/tether/internal/pidfd"
	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/ptree"
	"github.com/tetherproc/tether/internal/runtree"
	"github.com/tetherproc/tether/procid"
)

// End ends the trees that Find listed, each whole:
// every member is held by a handle (a pidfd on Linux) opened before its
// tree is looked at again, and only a tree still abandoned then is
// signalled, through those handles: act.Signal, act.Grace, then SIGKILL.
// What its members started meanwhile is ended with it. The end of ctx
// hurries the grace to its KILL.
func End(ctx context.Context, trees []Tree, act Action) []Ended {
	fs := proc.Host()
	out := make([]Ended, len(trees))
	handles := map[procid.ID]*pidfd.Handle{}
	defer func() {
		for _, h := range handles {
			h.Close()
		}
	}()
	var ending []int
	for i, t := range trees {
		out[i].Tree = t
		held, err := holdAll(fs, t.IDs(), handles)
		switch {
		case err != nil:
			out[i].NoLonger = EndsUnknown
		case len(held) == 0:
			out[i].Gone, out[i].Ended = true, true
		default:
			if out[i].NoLonger = stillAbandoned(fs, t.Root, act.AnyUser); out[i].NoLonger == 0 {
				ending = append(ending, i)
			}
		}
	}
	if len(ending) > 0 {
		endTrees(ctx, fs, trees, ending, handles, act, out)
	}
	return out
}

// endTrees ends the trees at idx together, one escalation for all.
func endTrees(ctx context.Context, fs proc.FS, trees []Tree, idx []int, handles map[procid.ID]*pidfd.Handle, act Action, out []Ended) {
	treeOf := map[procid.ID]int{}
	for _, i := range idx {
		for _, id := range trees[i].IDs() {
			treeOf[id] = i
		}
	}
	list := func() ([]procid.ID, bool) { return membersNow(fs, trees, idx), false }
	send := func(m procid.ID, s syscall.Signal) error {
		var err error
		if h, ok := handles[m]; ok {
			err = h.Signal(s)
		} else {
			err = kill.Signal(m, s)
		}
		if i, ok := treeOf[m]; ok && err != nil && !gone(err) && out[i].Err == nil {
			out[i].Err = err
		}
		return err
	}
	sig := act.Signal
	if sig == 0 {
		sig = syscall.SIGTERM
	}
	runtree.Tree{What: "abandoned stdio trees", Sources: []runtree.Source{runtree.SourceFunc(list)}, Signal: sig, Send: send}.End(ctx, act.Grace)
	for _, i := range idx {
		out[i].Left = ptree.Living(fs, membersNow(fs, trees, []int{i}))
		out[i].Ended = len(out[i].Left) == 0
	}
}

// gone reports whether a signal's error says its process is no more.
func gone(err error) bool {
	return errors.Is(err, syscall.ESRCH) || errors.Is(err, proc.ErrGone) || errors.Is(err, os.ErrProcessDone)
}

// holdAll opens a handle on each of ids still alive as itself (its start
// time read after the handle was opened), into handles, and returns the
// ones held. An error is a member that could not be held for another
// reason than its end (no descriptor left, a refusal): the tree's
// handles are closed and it is not to be signalled.
func holdAll(fs proc.FS, ids []procid.ID, handles map[procid.ID]*pidfd.Handle) ([]procid.ID, error) {
	var held []procid.ID
	for _, id := range ids {
		h, err := pidfd.Open(fs, id.PID)
		if errors.Is(err, proc.ErrGone) {
			continue
		}
		if err != nil {
			for _, m := range held {
				handles[m].Close()
				delete(handles, m)
			}
			return nil, err
		}
		if st, err := fs.Stat(id.PID); err != nil || st.StartTime != id.StartTime || st.Zombie() {
			h.Close()
			continue
		}
		handles[id] = h
		held = append(held, id)
	}
	return held, nil
}

// stillAbandoned looks at the tree of root again, from a new snapshot:
// 0 when it still is abandoned, otherwise why not.
func stillAbandoned(fs proc.FS, root procid.ID, anyUser bool) Why {
	snap, err := ptree.ReadSnapshot(fs)
	if err != nil {
		return EndsUnknown
	}
	p, ok := snap.Process(root.PID)
	if !ok || p.StartTime != root.StartTime || p.Zombie {
		return RootChanged
	}
	l := &looker{fs: fs, snap: snap, uid: os.Getuid(), anyUser: anyUser, protected: protectedPIDs(fs)}
	_, why, ok := l.tree(p)
	if !ok {
		return RootChanged // its input or output replaced
	}
	return why
}

// membersNow are the live members of the trees at idx: those listed,
// and what their roots have below them now.
func membersNow(fs proc.FS, trees []Tree, idx []int) []procid.ID {
	var ms []procid.ID
	for _, i := range idx {
		ms = append(ms, trees[i].IDs()...)
		if ptree.Alive(fs, trees[i].Root) {
			ms = append(ms, ptree.Subtree(fs, trees[i].Root.PID, 0)...)
		}
	}
	return ptree.Living(fs, ptree.Unique(ms))
}
