//go:build linux || darwin

package spawn

import (
	"fmt"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tetherproc/tether/internal/exitcode"
	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/registry"
	"github.com/tetherproc/tether/internal/trace"
)

// recordEvery is how often the supervisor writes its tree down for the
// watchdog: a descendant that renamed itself or cleared its environment
// and is younger than this when tether is killed with SIGKILL may be
// missed, unless its parent is still in the tree then. On the portable
// path, with no subreaper, the cleanup reads the same list, also when
// tether ends normally (it is written again before a TERM is passed on,
// and when the command has exited but is not yet reaped).
const recordEvery = 250 * time.Millisecond

// record writes the tree down for the watchdog.
func (r *run) record() {
	r.recorded = r.tree()
	r.wd.Record(r.recorded)
	if r.rec != nil {
		ids := make([]registry.ID, len(r.recorded))
		for i, m := range r.recorded {
			ids[i] = registry.ID(m)
		}
		r.rec.Members(ids)
	}
}

// loop waits for the command to exit, forwarding signals and reaping
// orphans, then cleans up what is left of the tree.
func (r *run) loop() int {
	var kill <-chan time.Time
	// A SIGCHLD can coalesce with another; the tick makes sure nothing
	// waits on it forever, and keeps the watchdog's list of the tree
	// current.
	tick := time.NewTicker(recordEvery)
	defer tick.Stop()
	for r.reap(); !r.done; r.reap() {
		var sig os.Signal
		if len(r.pending) > 0 {
			sig, r.pending = r.pending[0], r.pending[1:]
		} else {
			select {
			case sig = <-r.sigs:
			case <-kill:
				r.killTree()
				continue
			case <-tick.C:
				r.record()
				continue
			case stop := <-r.init.Stops():
				// The init's report of the command's stop: stop in
				// its place, unless it was continued meanwhile.
				if r.init.StillStopped() {
					r.suspend(stop)
				}
				continue
			}
		}
		if r.handle(sig.(syscall.Signal)) && kill == nil {
			r.termAt = time.Now()
			kill = time.After(r.cfg.Grace)
		}
	}
	r.cleanup()
	r.restoreTerminal()
	return exitcode.Wait(r.status)
}

// handle acts on one signal tether caught: it reaps on SIGCHLD, resumes
// on SIGCONT, and passes the rest on. It reports a TERM, which starts
// the grace.
func (r *run) handle(sig syscall.Signal) (term bool) {
	switch sig {
	case syscall.SIGCHLD:
	case syscall.SIGCONT:
		r.resume()
	case syscall.SIGTERM:
		// The tree as it stands before the TERM scatters it: where no
		// subreaper keeps it together, the cleanup finds the orphans
		// from this list.
		r.record()
		r.forward(sig)
		return true
	default:
		r.forward(sig)
	}
	return false
}

// killTree ends the tree at once: the grace after a TERM is over.
func (r *run) killTree() {
	trace.Printf("grace of %v after TERM over: KILL to the tree", r.cfg.Grace)
	r.cgroup.KillAll()
	for _, m := range r.tree() {
		_ = proc.Host().Signal(m, syscall.SIGKILL)
	}
}

// forward passes sig to the command's process group. The group id is the
// command's PID, which cannot be recycled while the command is unreaped.
func (r *run) forward(sig syscall.Signal) {
	if r.term.shared {
		r.forwardShared(sig)
		return
	}
	if err := unix.Kill(-r.child, sig); err != nil {
		trace.Printf("forward %s to group %d: %v; to %d alone", unix.SignalName(sig), r.child, err, r.child)
		_ = unix.Kill(r.child, sig)
		return
	}
	trace.Printf("forwarded %s to group %d", unix.SignalName(sig), r.child)
	if g := r.init.CommandGroup(r.child); g != 0 {
		// The command left the init's group (setpgid, setsid): the
		// group's signal missed it.
		r.init.Signal(sig)
		trace.Printf("forwarded %s to the command, in group %d", unix.SignalName(sig), g)
	}
}

// reap collects every exited child without blocking: the command's status
// is kept, adopted orphans are discarded. A command stopped by a job
// control signal stops tether too.
func (r *run) reap() {
	r.beforeReap()
	for {
		var ws unix.WaitStatus
		pid, err := unix.Wait4(-1, &ws, unix.WNOHANG|unix.WUNTRACED|unix.WCONTINUED, nil)
		if err == unix.EINTR {
			continue
		}
		if err != nil || pid <= 0 {
			return
		}
		stop, stopped := stopSignalOf(ws)
		switch {
		case stopped && pid == r.child:
			r.suspend(stop)
		case stopped, continued(ws):
		case pid == r.child:
			r.reaped(syscall.WaitStatus(ws))
		case pid == r.wd.PID():
			// Dead early: its PID may be recycled, and is never
			// signalled or waited for again.
			r.wd.Reaped()
		default:
			trace.Printf("reaped orphan %d", pid)
		}
	}
}

// reaped takes the command's end: its status, and its group's, whose
// number may be recycled from now on.
func (r *run) reaped(ws syscall.WaitStatus) {
	r.status = r.init.Status(ws)
	r.done = true
	r.wd.GroupGone()
	if r.status.Signaled() {
		trace.Printf("command %d killed by %s: exit status %d", r.child, unix.SignalName(r.status.Signal()), exitcode.Wait(r.status))
	} else {
		trace.Printf("command %d ended: exit status %d", r.child, exitcode.Wait(r.status))
	}
}

// tree lists the live processes of the command's tree: tether's subtree
// without its watchdog, and the strays found otherwise. As a child
// subreaper (Linux), tether stays an ancestor of everything its command
// starts, so no scan of every process is needed.
func (r *run) tree() []proc.Member {
	skip := 0
	if r.wd.Alive() {
		skip = r.wd.PID()
	}
	tree := r.below(skip)
	ms := r.strays()
	if len(ms) == 0 {
		return tree
	}
	// Members found otherwise than below tether: in the run's cgroup,
	// or, with no subreaper to keep them below, by the run id.
	seen := make(map[proc.Member]bool, len(tree))
	for _, m := range tree {
		seen[m] = true
	}
	for _, m := range ms {
		if !seen[m] {
			seen[m] = true
			tree = append(tree, m)
		}
	}
	return tree
}

// cleanup ends what the command left behind: TERM to the whole tree, up
// to Grace for it to go, then KILL until nothing is left.
func (r *run) cleanup() {
	fs := proc.Host()
	grace := r.cfg.Grace
	if !r.termAt.IsZero() {
		// What the command took of the grace to exit is gone: a
		// grandchild that ignores TERM gets only the rest.
		grace = max(0, grace-time.Since(r.termAt))
	}
	proc.Escalation{
		Grace: grace,
		List: func() ([]proc.Member, bool) {
			r.reap()
			return r.tree(), false
		},
		Send:    fs.Signal,
		KillAll: r.cgroup.KillAll,
		Wait:    r.waitChild,
		What:    fmt.Sprintf("cleanup of %d's tree", r.child),
	}.Run()
	r.reap()
}

// waitChild sleeps until a SIGCHLD arrives or the deadline passes, at
// most 100 ms: a member reaped by its own parent sends tether nothing.
func (r *run) waitChild(deadline time.Time) {
	t := time.NewTimer(min(time.Until(deadline), 100*time.Millisecond))
	defer t.Stop()
	for {
		select {
		case sig := <-r.sigs:
			if sig == syscall.SIGCHLD {
				return
			}
			// The command is gone; a late TERM or INT only hurries
			// the cleanup along, which is already under way.
		case <-t.C:
			return
		}
	}
}
