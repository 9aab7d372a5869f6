package abandoned

import (
	"errors"
	"os"

	"github.com/tetherproc/tether/internal/engines"
	"github.com/tetherproc/tether/internal/kill"
	"github.com/tetherproc/tether/internal/peers"
	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/ptree"
	"github.com/tetherproc/tether/internal/sockets"
	"github.com/tetherproc/tether/procid"
	"github.com/tetherproc/tether/reclaim"
)

// looker is one look for abandoned stdio trees: the snapshot of the
// process table it walks, and whose processes it selects.
type looker struct {
	fs        proc.FS
	snap      *ptree.Snapshot
	uid       int
	anyUser   bool
	protected map[int]reclaim.Protection
}

func protectedPIDs(fs proc.FS) map[int]reclaim.Protection { return kill.Protected(fs) }

// roots are the live processes whose parent is init, or a user's
// service manager (systemd --user, the subreaper that a desktop
// session's orphans go to): the ones whose parent is gone.
func (l *looker) roots() []proc.Process {
	var out []proc.Process
	l.snap.Each(func(p proc.Process) {
		if p.PID <= 1 || p.Zombie || p.KernelThread {
			return
		}
		if p.PPID == 1 || l.userManager(p.PPID) {
			out = append(out, p)
		}
	})
	return out
}

// userManager reports whether pid is a user's systemd, a child of init.
func (l *looker) userManager(pid int) bool {
	p, ok := l.snap.Process(pid)
	return ok && p.Comm == "systemd" && p.PPID == 1
}

// tree looks at root: ok is false when it is no stdio process of the
// selected users at all (its input or output a file, a terminal or the
// null device; gone; another user's); otherwise it is either the
// abandoned tree or why it was left out.
func (l *looker) tree(root proc.Process) (tree Tree, why Why, ok bool) {
	p, err := l.fs.Process(root.PID)
	if err != nil || p.StartTime != root.StartTime || (!l.anyUser && p.UID != l.uid) {
		return Tree{}, 0, false
	}
	in, ierr := peers.Look(l.fs.Root(), root.PID, 0)
	out, oerr := peers.Look(l.fs.Root(), root.PID, 1)
	switch {
	case errors.Is(ierr, peers.ErrGone) || errors.Is(oerr, peers.ErrGone):
		return Tree{}, 0, false
	case ierr != nil || oerr != nil:
		return Tree{}, EndsUnknown, true // undumpable, say: its ends cannot be read
	case !in.Talkable() || !out.Talkable():
		return Tree{}, 0, false
	case !in.Known || !out.Known:
		return Tree{}, EndsUnknown, true
	case !in.HungUp || !out.HungUp:
		return Tree{}, LivePeer, true
	case engines.Of(root.PID) != nil:
		return Tree{}, ManagedTree, true
	}
	ids := append([]procid.ID{{PID: root.PID, StartTime: root.StartTime}}, l.snap.Subtree([]int{root.PID}, 0, 0)...)
	if why := l.members(ids); why != 0 {
		return Tree{}, why, true
	}
	tree = Tree{Root: ids[0]}
	if at, err := l.fs.StartedAt(root.StartTime); err == nil {
		tree.Started = at
	}
	for _, id := range ids {
		tree.Members = append(tree.Members, l.member(id))
	}
	return tree, 0, true
}

// members checks every member of a tree whose root's input and output
// have hung up: none may be protected, another user's (unless asked
// for), in the middle of an execve, on a terminal, or talk through its
// own input or output with anyone outside the tree. What cannot be read
// is EndsUnknown, never clear.
func (l *looker) members(ids []procid.ID) Why {
	var open []openEnd
	for _, id := range ids {
		if why := l.memberWhy(id); why != 0 {
			return why
		}
		for fd := 0; fd <= 1; fd++ {
			e, err := peers.Look(l.fs.Root(), id.PID, fd)
			switch {
			case errors.Is(err, peers.ErrGone):
				// exited since, or the descriptor is closed
			case err != nil:
				return EndsUnknown
			case e.Kind == peers.Terminal:
				return OnTerminal
			case !e.Talkable() || e.Known && e.HungUp:
			case !e.Known:
				return EndsUnknown
			default:
				open = append(open, openEnd{e, fd == 0})
			}
		}
	}
	if len(open) == 0 {
		return 0
	}
	held, ok := filesOf(l.fs, ids)
	if !ok {
		return EndsUnknown
	}
	for _, o := range open {
		if !held.otherEnd(o) {
			return LivePeer
		}
	}
	return 0
}

// memberWhy is why one member keeps its tree out, before its ends are
// looked at: 0 when nothing does.
func (l *looker) memberWhy(id procid.ID) Why {
	if _, ok := l.protected[id.PID]; ok {
		return MemberProtected
	}
	if l.fs.Executing(id.PID) {
		return EndsUnknown
	}
	if !l.anyUser {
		if p, err := l.fs.Process(id.PID); err == nil && p.UID != l.uid {
			return MemberOtherUser
		}
	}
	return 0
}

// member reads what a tree's member shows: its user, command and memory.
func (l *looker) member(id procid.ID) Member {
	m := Member{ID: id, UID: -1}
	if p, err := l.fs.Process(id.PID); err == nil {
		m.PPID, m.UID, m.Comm = p.PPID, p.UID, p.Comm
	}
	m.Command, _ = l.fs.Cmdline(id.PID)
	m.Resident, _ = l.fs.Resident(id.PID)
	return m
}

// openEnd is a member's input or output that still has another end.
type openEnd struct {
	peers.End
	input bool
}

// heldFds are the pipes and sockets a tree's members hold.
type heldFds []sockets.File

// otherEnd reports whether a member holds o's other end: a writer of an
// input pipe, a reader of an output pipe, a socket's peer.
func (h heldFds) otherEnd(o openEnd) bool {
	for _, f := range h {
		switch {
		case o.Kind == peers.UnixSocket && f.Socket && o.Peer != 0 && f.Ino == o.Peer:
			return true
		case o.Kind == peers.Pipe && f.Pipe && f.Dev == o.Dev && f.Ino == o.Inode && (o.input && f.Writes || !o.input && f.Reads):
			return true
		}
	}
	return false
}

// filesOf reads the pipes and sockets the processes ids hold: a tree's
// members, a handful, never every process. ok is false when a live
// member's cannot be read.
func filesOf(fs proc.FS, ids []procid.ID) (heldFds, bool) {
	var out heldFds
	for _, id := range ids {
		fs, err := sockets.Files(fs, id.PID)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				continue // exited since
			}
			return nil, false
		}
		out = append(out, fs...)
	}
	return out, true
}
