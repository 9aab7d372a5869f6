package reclaim

import (
	"os"
	"strconv"
	"strings"

	"github.com/tetherproc/tether/internal/engines"
	"github.com/tetherproc/tether/internal/kill"
	"github.com/tetherproc/tether/internal/peers"
	"github.com/tetherproc/tether/internal/proc"
)

// looker is one look for abandoned stdio trees: the snapshot of the
// process table it walks, and whose processes it selects.
type looker struct {
	fs        proc.FS
	snap      *proc.Snapshot
	uid       int
	anyUser   bool
	protected map[int]string
}

func protectedPIDs(fs proc.FS) map[int]string { return kill.Protected(fs) }

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
func (l *looker) tree(root proc.Process) (tree Abandoned, why AbandonedWhy, ok bool) {
	p, err := l.fs.Process(root.PID)
	if err != nil || p.StartTime != root.StartTime || (!l.anyUser && p.UID != l.uid) {
		return Abandoned{}, 0, false
	}
	in, ierr := peers.Look(l.fs.Root(), root.PID, 0)
	out, oerr := peers.Look(l.fs.Root(), root.PID, 1)
	if ierr != nil || oerr != nil || !in.Talkable() || !out.Talkable() {
		return Abandoned{}, 0, false
	}
	switch {
	case !in.Known || !out.Known:
		return Abandoned{}, Unknown, true
	case !in.HungUp || !out.HungUp:
		return Abandoned{}, LivePeer, true
	case engines.Of(root.PID) != nil:
		return Abandoned{}, Managed, true
	}
	ids := append([]proc.Member{{PID: root.PID, StartTime: root.StartTime}}, l.snap.Descendants([]int{root.PID}, 0, 0)...)
	if why := l.members(ids, in.Inode, out.Inode); why != 0 {
		return Abandoned{}, why, true
	}
	tree = Abandoned{Root: ids[0]}
	if at, err := l.fs.StartedAt(root.StartTime); err == nil {
		tree.Started = at
	}
	for _, id := range ids {
		tree.Members = append(tree.Members, l.member(id))
	}
	return tree, 0, true
}

// members checks every member of a tree whose root's input and output
// (inodes in and out) have hung up: none may be protected, in the middle
// of an execve, on a terminal, or talk through its own input or output
// with anyone outside the tree.
func (l *looker) members(ids []proc.Member, in, out uint64) AbandonedWhy {
	var open []openEnd
	for _, id := range ids {
		if _, ok := l.protected[id.PID]; ok {
			return IsProtected
		}
		if l.fs.Executing(id.PID) {
			return Unknown
		}
		for fd := 0; fd <= 1; fd++ {
			e, err := peers.Look(l.fs.Root(), id.PID, fd)
			switch {
			case err != nil || !e.Talkable() && e.Kind != peers.Terminal:
				// gone since, or a file: nothing to talk through
			case e.Kind == peers.Terminal:
				return OnTerminal
			case e.Inode == in || e.Inode == out || e.Known && e.HungUp:
			case !e.Known:
				return Unknown
			default:
				open = append(open, openEnd{e, fd == 0})
			}
		}
	}
	if len(open) == 0 {
		return 0
	}
	held := fdsOf(l.fs, ids)
	for _, o := range open {
		if !held.otherEnd(o) {
			return LivePeer
		}
	}
	return 0
}

// member reads what a tree's member shows: its user, command and memory.
func (l *looker) member(id proc.Member) TreeMember {
	m := TreeMember{ID: id, UID: -1}
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

// heldFd is one descriptor a member holds: its file's inode and whether
// it reads and writes through it.
type heldFd struct {
	inode         uint64
	reads, writes bool
	socket        bool
}

type heldFds []heldFd

// otherEnd reports whether a member holds o's other end: a writer of an
// input pipe, a reader of an output pipe, a socket's peer.
func (h heldFds) otherEnd(o openEnd) bool {
	for _, f := range h {
		switch {
		case o.Kind == peers.UnixSocket && f.socket && o.Peer != 0 && f.inode == o.Peer:
			return true
		case o.Kind == peers.Pipe && !f.socket && f.inode == o.Inode && (o.input && f.writes || !o.input && f.reads):
			return true
		}
	}
	return false
}

// fdsOf reads the descriptors the processes ids hold: a tree's members,
// a handful, never every process.
func fdsOf(fs proc.FS, ids []proc.Member) heldFds {
	var out heldFds
	for _, id := range ids {
		dir := fs.Root() + "/" + strconv.Itoa(id.PID)
		ents, err := os.ReadDir(dir + "/fd")
		if err != nil {
			continue
		}
		for _, ent := range ents {
			var f heldFd
			st, err := os.Stat(dir + "/fd/" + ent.Name())
			if err != nil {
				continue
			}
			f.inode = inodeOf(st)
			f.socket = st.Mode()&os.ModeSocket != 0
			if st.Mode()&os.ModeNamedPipe == 0 && !f.socket {
				continue
			}
			f.reads, f.writes = accessOf(dir + "/fdinfo/" + ent.Name())
			out = append(out, f)
		}
	}
	return out
}

// accessOf reads the access mode of an fdinfo file's flags (octal).
func accessOf(path string) (reads, writes bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return false, false
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "flags:"); ok {
			flags, err := strconv.ParseUint(strings.TrimSpace(v), 8, 32)
			if err != nil {
				return false, false
			}
			switch flags & 3 {
			case 0:
				return true, false
			case 1:
				return false, true
			default:
				return true, true
			}
		}
	}
	return false, false
}
