//go:build linux || darwin

package spawn

import (
	"context"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/tetherproc/tether/internal/exitcode"
	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/runtree"
	"github.com/tetherproc/tether/internal/sigstate"
	"github.com/tetherproc/tether/internal/trace"
	"github.com/tetherproc/tether/internal/watchdog"
	"github.com/tetherproc/tether/procid"
)

// record writes the tree down for the watchdog and the run's record.
func (r *supervisor) record() {
	r.keep(r.tree())
	r.wd().Record(r.kept)
}

// loop waits for the command to exit, forwarding signals and reaping
// orphans, then cleans up what is left of the tree.
func (r *supervisor) loop() {
	var kill <-chan time.Time
	// A SIGCHLD can coalesce with another; the tick makes sure nothing
	// waits on it forever, and keeps the watchdog's list of the tree
	// current.
	tick := time.NewTicker(keepEvery)
	defer tick.Stop()
	for r.reap(); !r.done; r.reap() {
		sig, ok := r.next(kill, tick.C)
		if !ok {
			continue
		}
		if r.handle(sig.(syscall.Signal)) && kill == nil {
			r.termAt = time.Now()
			kill = time.After(r.cfg.Grace)
		}
	}
	if r.daemonsKept() {
		r.superviseDaemons()
	}
	r.cleanup()
	r.term.restore(r.child)
}

// daemonsKept reports whether the tree is to run on once the command
// has exited: with Forking, after an exit status of 0 and before any
// TERM.
func (r *supervisor) daemonsKept() bool {
	return r.cfg.Forking && r.exitedZero()
}

func (r *supervisor) exitedZero() bool {
	return r.status.Exited() && r.status.ExitStatus() == 0 && r.termAt.IsZero()
}

// namedDaemon says on stderr, once, that a daemon the command left (a
// process that made itself a session leader) is being ended, when the
// command exited 0 without Forking: a launcher that daemonizes otherwise
// looks like a run that ended at once, in silence. tree is the cleanup's
// first look at what is left, before its first TERM.
func (r *supervisor) namedDaemon(tree []procid.ID) {
	if r.cfg.Forking || !r.exitedZero() || r.daemonNamed {
		return
	}
	r.daemonNamed = true
	fs := proc.Host()
	// A launcher may exit between its fork and its child's setsid
	// (redis does): while an orphan it left is not yet a session leader,
	// it is looked at again for a few milliseconds before the TERM.
	for try := 0; try < 10; try++ {
		adopted := false
		for _, m := range tree {
			st, err := fs.Stat(m.PID)
			if err != nil || st.StartTime != m.StartTime {
				continue
			}
			if st.Session == m.PID {
				trace.Printf("command exited 0 and left %d (%s), a daemon in a session of its own: ending it", m.PID, st.Comm)
				if r.cfg.OnDaemonEnded != nil {
					r.cfg.OnDaemonEnded(m.PID, st.Comm)
				}
				return
			}
			adopted = adopted || st.PPID == os.Getpid()
		}
		if !adopted {
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// superviseDaemons runs the tree on after its command exited 0, with
// Forking, until none of it is left: signals go to each of its process
// groups, a TERM starts the grace, and the exit status becomes that of
// the last member reaped.
func (r *supervisor) superviseDaemons() {
	var kill <-chan time.Time
	tick := time.NewTicker(keepEvery)
	defer tick.Stop()
	trace.Printf("command exited 0: forking: its tree is supervised until it is gone")
	// The status is the last one reaped from now on: an orphan reaped
	// while the command ran is not the daemons'.
	r.orphaned = false
	for r.reap(); len(r.tree()) > 0; r.reap() {
		sig, ok := r.next(kill, tick.C)
		if !ok {
			continue
		}
		switch s := sig.(syscall.Signal); s {
		case syscall.SIGCHLD:
		case syscall.SIGTERM:
			r.scanFromNow()
			r.record()
			r.forwardTree(s)
			if kill == nil {
				r.termAt = time.Now()
				kill = time.After(r.cfg.Grace)
			}
		default:
			r.forwardTree(s)
		}
	}
	if r.orphaned {
		r.status = r.lastOrphan
	}
	trace.Printf("the daemons' tree is gone: exit status %d", exitcode.Wait(r.status))
}

// next waits for the next signal to handle: one taken off while the
// command was stopped first, then those caught. It handles what else
// comes meanwhile (the grace's end, the tick, the init's report of the
// command's stop) and then returns false.
func (r *supervisor) next(kill, tick <-chan time.Time) (os.Signal, bool) {
	if len(r.pending) > 0 {
		sig := r.pending[0]
		r.pending = r.pending[1:]
		return sig, true
	}
	select {
	case sig := <-r.sigs:
		return sig, true
	case <-kill:
		r.killTree()
	case <-tick:
		r.record()
	case stop := <-r.init.Stops():
		// The init's report of the command's stop: stop in its place,
		// unless it was continued meanwhile.
		if r.init.StillStopped() {
			r.suspend(stop)
		}
	}
	return nil, false
}

// handle acts on one signal tether caught: it reaps on SIGCHLD, resumes
// on SIGCONT, and passes the rest on. It reports a TERM, which starts
// the grace.
func (r *supervisor) handle(sig syscall.Signal) (term bool) {
	switch sig {
	case syscall.SIGCHLD:
	case syscall.SIGCONT:
		r.resume()
	case syscall.SIGTERM:
		// The tree as it stands before the TERM scatters it: where no
		// subreaper keeps it together, the cleanup finds the orphans
		// from this list.
		r.scanFromNow()
		r.record()
		r.forward(sig)
		return true
	default:
		r.forward(sig)
	}
	return false
}

// killTree ends the tree at once: the grace after a TERM is over.
func (r *supervisor) killTree() {
	trace.Printf("grace of %v after TERM over: KILL to the tree", r.cfg.Grace)
	r.runTree().Kill()
}

// runTree is the command's tree: tether's subtree without its watchdog,
// and the strays found otherwise (in the run's cgroup, or, with no
// subreaper to keep them below, by the run id). As a child subreaper
// (Linux), tether stays an ancestor of everything its command starts,
// so no scan of every process is needed.
func (r *supervisor) runTree() runtree.Tree {
	return runtree.Tree{What: r.what(), Sources: []runtree.Source{r.below(), r.strays()}}
}

// skip is the PID whose subtree is not the run's: the watchdog's, asked
// at each look, since a watchdog that died is replaced by a new child of
// tether, also while the tree is being ended.
func (r *supervisor) skip() int {
	if wd := r.wd(); wd.Alive() {
		return wd.PID()
	}
	return 0
}

// tree lists the live processes of the command's tree.
func (r *supervisor) tree() []procid.ID {
	ms, _ := r.runTree().Members()
	return ms
}

// cleanup ends what the command left behind: TERM to the whole tree, up
// to Grace for it to go, then KILL until nothing is left.
func (r *supervisor) cleanup() {
	r.scanFromNow()
	grace := r.cfg.Grace
	if !r.termAt.IsZero() {
		// What the command took of the grace to exit is gone: a
		// grandchild that ignores TERM gets only the rest.
		grace = max(0, grace-time.Since(r.termAt))
	}
	t := r.runTree()
	t.Before = r.reap
	t.OnLook = r.namedDaemon
	t.Wait = r.waitChild
	t.End(context.Background(), grace)
	r.reap()
}

// waitChild sleeps until a SIGCHLD arrives or the deadline passes, at
// most 100 ms: a member reaped by its own parent sends tether nothing.
func (r *supervisor) waitChild(deadline time.Time) {
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

// replaceWatchdog starts a new watchdog in place of one that died (a
// kill -9 of it, the OOM killer), told all the first one was: without
// one, a SIGKILL of tether would leave the tree running.
func (r *supervisor) replaceWatchdog(ws syscall.WaitStatus) {
	spec := r.watchdogSpec()
	spec.Members = r.kept
	if dir := r.group.Path(); dir != "" {
		spec.Lines = append(spec.Lines, "c "+dir)
	}
	if !r.done {
		spec.Lines = append(spec.Lines, "g "+strconv.Itoa(r.child))
	}
	if r.guard.replace(ws, func() (*watchdog.Watchdog, error) { return watchdog.Start(spec) }) {
		r.rec.Watchdog(r.guard.id())
	}
}

// finish runs however Supervise returns: the watchdog is stopped last,
// after the tree is cleaned up. Unregistering the signals waits on the
// runtime's signal thread as stopping the watchdog waits on its death,
// so the two wait side by side.
func (r *supervisor) finish() {
	r.finished.Do(func() {
		// The set-up begun aside is over first: a registration still
		// under way would outlast the Stop below, and leave a library
		// caller's process catching TERM into a channel no one reads.
		_ = r.ready()
		// No signal is registered from now on.
		r.late.stop()
		if r.stopChain != nil {
			r.stopChain()
		}
		if r.stopHangup != nil {
			r.stopHangup()
		}
		// A library caller's process gets its signals back as Supervise
		// returns, not a moment later. A sole reaper's is about to exit,
		// all its work done: its signals stay caught, into a channel no
		// one reads, since giving each back is a round trip to the
		// runtime's signal thread (some twenty: a third of a run's CPU
		// at its end, even on a goroutine of their own).
		if !r.cfg.SoleReaper {
			signal.Stop(r.sigs)
			if r.unreserve != nil {
				r.unreserve()
			}
		}
		r.rec.Remove()
		if r.cfg.SoleReaper {
			r.wd().StopExiting()
		} else {
			r.wd().Stop()
		}
		// Also when the command never started: a group made for it
		// goes, and the init's pipe is closed.
		r.init.Close()
		r.group.Release()
		r.stdio.closeAll()
	})
}

// dieLikeCommand ends the calling process by the signal the command died
// of, after the cleanup, with Options.DieBySignal; as PID 1, which no
// signal ends, it returns.
func (r *supervisor) dieLikeCommand() {
	if ws := r.status; ws.Signaled() && r.cfg.DieBySignal && os.Getpid() != 1 {
		r.finish()
		sigstate.DieBy(ws.Signal())
	}
}
