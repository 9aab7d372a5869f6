package runtree

import (
	"syscall"
	"time"

	"github.com/tetherproc/tether/internal/kill"
	"github.com/tetherproc/tether/internal/ptree"
	"github.com/tetherproc/tether/procid"
)

// A Source lists some of a run's live members, each once, in a list of
// its own that the tree may keep and extend. Unsettled says that a
// process could not yet be told to be a member or not (in the middle of
// an execve), so that an empty list is not the end of the run.
type Source interface {
	List() (live []procid.ID, unsettled bool)
}

// SourceFunc is a Source made of a function: a tree whose members only
// its builder can find (a Host's children ended together, reclaim's
// verified set).
type SourceFunc func() (live []procid.ID, unsettled bool)

// List calls f.
func (f SourceFunc) List() ([]procid.ID, bool) { return f() }

// killer is a Source that can end all of its members at once, whatever
// they fork meanwhile: a cgroup. Its KillAll is called as the grace ends.
type killer interface {
	KillAll()
}

// Tree is the processes of a run, or of several ended together, as the
// union of its Sources: a process is a member when any source lists it.
type Tree struct {
	// What names the tree in trace lines: "end of web (run 3fa0…)".
	What string
	// Sources are looked at in order; a member listed by two is one.
	Sources []Source
	// Before, when set, is called before each look: a supervisor reaps
	// what exited, so that a PID it reaped is not listed as a member.
	Before func()
	// OnLook, when set, is told each look's members as End takes them,
	// before any of them is signalled.
	OnLook func(live []procid.ID)
	// Signal is sent first when the tree is ended; default SIGTERM.
	Signal syscall.Signal
	// Send signals one member; default kill.Signal, which never hits a
	// process that took the member's PID since.
	Send func(m procid.ID, sig syscall.Signal) error
	// KillAll, when set, is called once as the grace ends, after the
	// KillAll of each source that has one (a cgroup's).
	KillAll func()
	// Wait blocks until a member may have exited or until the deadline;
	// default a sleep of at most 10 ms.
	Wait func(deadline time.Time)
	// Quiet is how long the tree must be seen empty and settled before
	// it is taken as ended: a process forked a moment ago may not be
	// listed yet. Zero ends it at the first empty look.
	Quiet time.Duration
}

// Members lists the live members of the tree, each once, in the order
// its sources listed them, and whether some source is unsettled.
func (t Tree) Members() ([]procid.ID, bool) {
	if t.Before != nil {
		t.Before()
	}
	return t.members()
}

func (t Tree) members() ([]procid.ID, bool) {
	// A source lists each of its members once: the list of the only
	// source with members (a tree of one source, a supervisor with no
	// strays) is taken as it is.
	var out []procid.ID
	unsettled, merged := false, false
	for _, s := range t.Sources {
		ms, u := s.List()
		unsettled = unsettled || u
		switch {
		case len(ms) == 0:
		case out == nil:
			out = ms
		default:
			out, merged = append(out, ms...), true
		}
	}
	if merged {
		out = ptree.Unique(out)
	}
	return out, unsettled
}

// Kill ends the tree at once: the KillAll of its sources and its own,
// then SIGKILL to each member it lists now. It does not wait.
func (t Tree) Kill() {
	t.killAll()
	ms, _ := t.Members()
	send := t.send()
	for _, m := range ms {
		_ = send(m, syscall.SIGKILL)
	}
}

func (t Tree) send() func(procid.ID, syscall.Signal) error {
	if t.Send != nil {
		return t.Send
	}
	return kill.Signal
}

// killAll is the KillAll of each source that has one, then the tree's.
func (t Tree) killAll() {
	for _, s := range t.Sources {
		if k, ok := s.(killer); ok {
			k.KillAll()
		}
	}
	if t.KillAll != nil {
		t.KillAll()
	}
}
