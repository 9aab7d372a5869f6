//go:build linux || darwin

package spawn

import (
	"os"
	"slices"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/tetherproc/tether/internal/exitcode"
	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/trace"
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

// ownChild is one child of the process that is the run's.
type ownChild struct {
	proc.Member
	zombie bool
}

// ownChildren lists the children of the process that are the run's: the
// command while it is unreaped, and the orphans of its tree adopted by
// the subreaper. What each child was found to be is kept for as long as
// it is a child, so that one seen to be the run's while it ran is known
// to be when it is a zombie.
func (r *supervisor) ownChildren() []ownChild {
	fs := proc.Host()
	var out []ownChild
	if r.child != 0 && !r.done {
		if st, err := fs.Stat(r.child); err == nil {
			out = append(out, ownChild{proc.Member{PID: r.child, StartTime: st.StartTime}, st.Zombie()})
		}
	}
	if !adoptsOrphans {
		return out
	}
	known := make(map[proc.Member]bool, len(r.adopted))
	entry := r.entry()
	for _, pid := range fs.Children(os.Getpid()) {
		if pid == r.child || pid == r.wd().PID() {
			continue
		}
		st, err := fs.Stat(pid)
		if err != nil {
			continue
		}
		m := proc.Member{PID: pid, StartTime: st.StartTime}
		ours, seen := r.adopted[m]
		if !ours {
			// The group and the list are asked each time (a
			// process may be listed since); the environment once.
			// The group's number is the command's only while the
			// command is unreaped.
			ours = r.child != 0 && !r.done && st.PGID == r.child || slices.Contains(r.kept, m)
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
	r.adopted = known
	return out
}

// reap collects every exited child of the run without blocking: the
// command's status is kept, adopted orphans are discarded. A command
// stopped by a job control signal stops tether too. As the process's
// sole reaper (Config.SoleReaper) it takes whatever child exits, as an
// init must; otherwise only the command, the watchdog, and the orphans
// it can tell are the run's (reapOwn).
func (r *supervisor) reap() {
	r.beforeReap()
	if r.cfg.SoleReaper {
		for r.reapOne(-1) {
		}
		return
	}
	r.reapOwn()
}

// reapOne collects one child that changed state, of which (-1: any),
// without blocking, and reports whether there was one.
func (r *supervisor) reapOne(which int) bool {
	var ws unix.WaitStatus
	pid, err := unix.Wait4(which, &ws, unix.WNOHANG|unix.WUNTRACED|unix.WCONTINUED, nil)
	if err == unix.EINTR {
		return true
	}
	if err != nil || pid <= 0 {
		return false
	}
	stop, stopped := stopSignalOf(ws)
	switch {
	case stopped && pid == r.child:
		r.suspend(stop)
	case stopped, continued(ws):
	case pid == r.child:
		r.reaped(syscall.WaitStatus(ws))
	case pid == r.wd().PID():
		// Dead early: its PID may be recycled, and is never
		// signalled or waited for again.
		r.replaceWatchdog(syscall.WaitStatus(ws))
	default:
		r.lastOrphan, r.orphaned = syscall.WaitStatus(ws), true
		trace.Printf("reaped orphan %d", pid)
	}
	return true
}

// reapOwn reaps by PID, never wait4(-1), so that the statuses of the
// calling program's other children stay for their own exec.Cmd: the
// command (until it is reaped: its PID may be another child's after), the
// watchdog, and each child of the process that is one of the run's
// orphans (ownChildren).
func (r *supervisor) reapOwn() {
	for r.child != 0 && !r.done && r.reapOne(r.child) {
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

// reaped takes the command's end: its status, and its group's, whose
// number may be recycled from now on.
func (r *supervisor) reaped(ws syscall.WaitStatus) {
	r.status = r.init.Status(ws)
	r.done = true
	r.wd().GroupGone()
	if r.status.Signaled() {
		trace.Printf("command %d killed by %s: exit status %d", r.child, unix.SignalName(r.status.Signal()), exitcode.Wait(r.status))
	} else {
		trace.Printf("command %d ended: exit status %d", r.child, exitcode.Wait(r.status))
	}
}
