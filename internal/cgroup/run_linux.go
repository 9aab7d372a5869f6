package cgroup

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"

	"github.com/tetherproc/tether/internal/kill"
	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/trace"
	"github.com/tetherproc/tether/marker"
	"github.com/tetherproc/tether/procid"
)

// New makes the group of run runID below the calling process's own
// cgroup, stamped, and makes sure that a process can be moved into it: a
// group made in a hierarchy whose cgroup.procs files are not the
// caller's (a directory handed over without them) would only fail at
// the start of the command.
func New(runID string, stamp []string) (*Group, error) {
	h, err := Host()
	if err != nil {
		return nil, err
	}
	own, err := h.Of(proc.Host(), os.Getpid())
	if err != nil {
		return nil, err
	}
	g, err := Create(own, runID, stamp)
	if err != nil {
		if errors.Is(err, unix.EACCES) && os.Geteuid() != 0 {
			err = fmt.Errorf("%w (not root: start tether in a cgroup delegated to you, as systemd-run --user --scope -p Delegate=yes does)", err)
		}
		return nil, err
	}
	for _, dir := range []string{g.Dir, own} {
		if err := unix.Access(filepath.Join(dir, "cgroup.procs"), unix.W_OK); err != nil {
			_ = g.Close()
			_ = Remove(g.Dir, 0)
			return nil, fmt.Errorf("no process can be moved into %s: %s/cgroup.procs: %w", g.Dir, dir, err)
		}
	}
	return g, nil
}

// Try makes a run's group and removes it again, as New would make one
// for tether run --contain=cgroup: nil when that would work here. It
// also tells whether the kernel has cgroup.kill (Linux 5.14+), a file
// of every group but the root, and why a child cannot be born in a
// group here (bornIn: BornIn's answer), if it cannot.
func Try() (hasKill bool, bornIn, err error) {
	g, err := New(marker.NewRunID(), nil)
	if err != nil {
		return false, nil, err
	}
	_, err = os.Stat(filepath.Join(g.Dir, "cgroup.kill"))
	bornIn = g.BornIn()
	_ = g.Close()
	return err == nil, bornIn, Remove(g.Dir, 0)
}

// Open is the group in dir, made by another process (the supervisor of
// a run, for its watchdog): nil when dir is "" or there is no cgroup v2.
func Open(dir string) *Group {
	if dir == "" {
		return nil
	}
	if _, err := Host(); err != nil {
		return nil
	}
	return &Group{Dir: dir}
}

// Path is the group's directory, "" for none (nil).
func (g *Group) Path() string {
	if g == nil {
		return ""
	}
	return g.Dir
}

// Members are the group's live processes; none for nil.
func (g *Group) Members() []procid.ID {
	if g == nil {
		return nil // and no look for the hierarchy either
	}
	h, err := Host()
	if err != nil {
		return nil
	}
	return h.Members(proc.Host(), g.Dir)
}

// KillAll ends every process of the group at once ([Kill]); nothing for
// nil. A failure is traced: the caller goes on to signal each member.
func (g *Group) KillAll() {
	if g == nil {
		return
	}
	if err := Kill(g.Dir); err != nil {
		trace.Printf("%v", err)
		return
	}
	trace.Printf("killed cgroup %s", g.Dir)
}

// Release closes the group and removes it once it is empty, waiting up
// to kill.WaitAfterKill for its last members to leave; nothing for nil.
func (g *Group) Release() {
	if g == nil {
		return
	}
	if g.dir != nil {
		_ = g.dir.Close()
		g.dir = nil
	}
	if err := Remove(g.Dir, kill.WaitAfterKill); err != nil {
		trace.Printf("%v", err)
	}
}
