//go:build linux || darwin

package spawn

import (
	"os"
	"slices"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/tetherproc/tether/internal/exitcode"
	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/ptree"
	"github.com/tetherproc/tether/internal/sigstate"
	"github.com/tetherproc/tether/internal/trace"
	"github.com/tetherproc/tether/procid"
)

// A Supervise that is not its process's sole reaper shares the process
// with children the program started itself (exec.Cmd's, each waited for
// by its own Wait), and as a child subreaper it is also given the orphans
// of its command's tree. The two are told apart here, child by child:
// only the run's are reaped and cleaned up. An orphan is the run's when
// it carries the run id (every process of the tree inherits it), when it
// is on the list of the tree written at the last tick or TERM (one that
// renamed itself or cleared its environment), or when it is in the
// command's process group while the command is unreaped (after, the
// number may be another's). An exited orphan (a zombie) has no
// environment left to read: it is the run's only if it was seen to be
// while it ran, or is on the list, or in the group. One that is none of
// these is left to whoever started it; a short-lived orphan of the tree
// that left the group, cleared its environment and exited before the
// next tick stays a zombie of the program, which is the price of never
// taking another child's status.

// reaper is the run's side of wait4, as tini's reap_zombies is: it
// collects the children that changed state, keeps the command's status
// and the last orphan's, and knows which of the process's other
// children are the run's. What a change means to the run (a stop, the
// command's end, the watchdog's death) is the supervisor's to act on.
type reaper struct {
	// sole: the process has no children but the run's (Options.SoleReaper):
	// wait4(-1), as an init must.
	sole bool
	// child is the command, once started (0 before); done once it is
	// reaped, with its status.
	child  int
	status syscall.WaitStatus
	done   bool
	// lastOrphan is the status of the last orphan reaped, once one was
	// (orphaned): a daemon's, for Forking.
	lastOrphan syscall.WaitStatus
	orphaned   bool
	// adopted says, of each child of the process that is not the
	// command, whether it is the run's; without sole only.
	adopted map[procid.ID]bool
}

// unreaped reports whether the command runs, or exited and is not yet
// reaped: its PID, and its group's number, are its own.
func (p *reaper) unreaped() bool { return p.child != 0 && !p.done }

// change is what one wait4 found.
type change int

const (
	commandStopped change = iota + 1
	commandExited
	watchdogDied
	orphanReaped
	otherChange // an orphan's stop or continue
)

// found is what one wait4 found: what changed, the child's status, and
// the signal that stopped it (for commandStopped).
type found struct {
	what   change
	status syscall.WaitStatus
	stop   syscall.Signal
}

// collect collects one child that changed state, of which (-1: any),
// without blocking, or reports false when none did. watchdog is the
// process's watchdog (0: none). An orphan's status is kept as the last.
func (p *reaper) collect(which, watchdog int) (found, bool) {
	var ws unix.WaitStatus
	pid, err := unix.Wait4(which, &ws, unix.WNOHANG|unix.WUNTRACED|unix.WCONTINUED, nil)
	if err == unix.EINTR {
		return found{what: otherChange}, true
	}
	if err != nil || pid <= 0 {
		return found{}, false
	}
	f := found{status: syscall.WaitStatus(ws)}
	stop, stopped := sigstate.StopSignal(ws)
	switch {
	case stopped && pid == p.child:
		f.what, f.stop = commandStopped, stop
	case stopped, sigstate.Continued(ws):
		f.what = otherChange
	case pid == p.child:
		f.what = commandExited
	case pid == watchdog:
		f.what = watchdogDied
	default:
		f.what = orphanReaped
		p.lastOrphan, p.orphaned = f.status, true
		trace.Printf("reaped orphan %d", pid)
	}
	return f, true
}

// exited takes the command's end, with its status.
func (p *reaper) exited(status syscall.WaitStatus) {
	p.status, p.done = status, true
	if status.Signaled() {
		trace.Printf("command %d killed by %s: exit status %d", p.child, unix.SignalName(status.Signal()), exitcode.Wait(status))
	} else {
		trace.Printf("command %d ended: exit status %d", p.child, exitcode.Wait(status))
	}
}

// ownChild is one child of the process that is the run's.
type ownChild struct {
	procid.ID
	zombie bool
}

// ownChildren lists the children of the process that are the run's: the
// command while it is unreaped, and the orphans of its tree adopted by
// the subreaper: those carrying entry (the run id), on kept (the tree as
// last written down), or in the command's group while it is unreaped;
// the watchdog is never one. What each child was found to be is kept for
// as long as it is a child, so that one seen to be the run's while it
// ran is known to be when it is a zombie.
func (p *reaper) ownChildren(entry string, kept []procid.ID, watchdog int) []ownChild {
	fs := proc.Host()
	var out []ownChild
	if p.unreaped() {
		if st, err := fs.Stat(p.child); err == nil {
			out = append(out, ownChild{procid.ID{PID: p.child, StartTime: st.StartTime}, st.Zombie()})
		}
	}
	if !adoptsOrphans {
		return out
	}
	known := make(map[procid.ID]bool, len(p.adopted))
	for _, pid := range ptree.Children(fs, os.Getpid()) {
		if pid == p.child || pid == watchdog {
			continue
		}
		st, err := fs.Stat(pid)
		if err != nil {
			continue
		}
		m := procid.ID{PID: pid, StartTime: st.StartTime}
		ours, seen := p.adopted[m]
		if !ours {
			// The group and the list are asked each time (a
			// process may be listed since); the environment once.
			// The group's number is the command's only while the
			// command is unreaped.
			ours = p.unreaped() && st.PGID == p.child || slices.Contains(kept, m)
			if !ours && !seen && !st.Zombie() {
				env, err := fs.Environ(pid)
				if err != nil || len(env) == 0 {
					// Gone, or an execve under way: asked
					// again next time.
					continue
				}
				ours = slices.Contains(env, entry)
			}
		}
		known[m] = ours
		if ours {
			out = append(out, ownChild{m, st.Zombie()})
		}
	}
	p.adopted = known
	return out
}

// ownChildren is the reaper's, for this run.
func (r *supervisor) ownChildren() []ownChild {
	return r.reaper.ownChildren(r.entry(), r.kept, r.wd().PID())
}

// reap collects every exited child of the run without blocking: the
// command's status is kept, adopted orphans are discarded. A command
// stopped by a job control signal stops tether too. As the process's
// sole reaper (Options.SoleReaper) it takes whatever child exits, as an
// init must; otherwise only the command, the watchdog, and the orphans
// it can tell are the run's (reapOwn).
func (r *supervisor) reap() {
	r.beforeReap()
	if r.sole {
		for r.reapOne(-1) {
		}
		return
	}
	r.reapOwn()
}

// reapOne collects one child that changed state, of which (-1: any),
// and acts on what it was: it reports whether there was one.
func (r *supervisor) reapOne(which int) bool {
	f, ok := r.collect(which, r.wd().PID())
	switch f.what {
	case commandStopped:
		r.suspend(f.stop)
	case commandExited:
		r.exited(r.init.Status(f.status))
		// The group's number may be recycled from now on.
		r.wd().GroupGone()
	case watchdogDied:
		// Dead early: its PID may be recycled, and is never
		// signalled or waited for again.
		r.replaceWatchdog(f.status)
	}
	return ok
}

// reapOwn reaps by PID, never wait4(-1), so that the statuses of the
// calling program's other children stay for their own exec.Cmd: the
// command (until it is reaped: its PID may be another child's after), the
// watchdog, and each child of the process that is one of the run's
// orphans (ownChildren).
func (r *supervisor) reapOwn() {
	for r.unreaped() && r.reapOne(r.child) {
	}
	if wd := r.wd(); wd.Alive() {
		r.reapOne(wd.PID())
	}
	for _, m := range r.ownChildren() {
		if m.PID != r.child {
			r.reapOne(m.PID)
		}
	}
}
