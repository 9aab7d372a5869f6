//go:build darwin || (linux && tetherportable)

package spawn

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"syscall"

	"github.com/tetherproc/tether/internal/callerchain"
	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/ptree"
	"github.com/tetherproc/tether/internal/runtree"
	"github.com/tetherproc/tether/internal/trace"
	"github.com/tetherproc/tether/marker"
	"github.com/tetherproc/tether/procid"
)

// This file is the portable supervision path: macOS's, and Linux's with
// the tetherportable build tag, which has the Linux build take it so that
// it runs in Linux CI. No parent-death signal (the caller is followed by
// an event, the command is covered by the watchdog alone should tether
// be killed), no child subreaper (the tree is found by parent links, its
// process group and its run id), no pidfd, no containment.

// becomeSubreaper has nothing to do: there is no subreaper.
func becomeSubreaper() (restore func(), err error) { return func() {}, nil }

// followParent watches the caller and, when it dies, hands the loop a
// SIGTERM as its death would have sent one. The parent is read again
// once it is watched: one that died first is errParentGone. restore ends
// the watch, when Supervise returns.
func followParent(sigs chan<- os.Signal) (restore func(), err error) {
	ppid := os.Getppid()
	if ppid <= 1 {
		return func() {}, nil // nothing to follow: init, or already orphaned
	}
	stop, err := callerchain.WatchParent(ppid, func() { sigs <- syscall.SIGTERM })
	if err == callerchain.ErrGone {
		return func() {}, errParentGone
	} else if err != nil {
		return func() {}, err
	}
	return stop, nil
}

// armChild gives the command a process group of its own.
func armChild(_ Options, a *syscall.SysProcAttr) { a.Setpgid = true }

// tickState is what the listing of the tree keeps from one tick to the
// next. Each listing is built from one snapshot of the process table
// (on macOS one sysctl, kern.proc.all): the walk by parent links, the
// command's group and the list last written down are all looked up in
// it. The run id is looked for only in the environments of processes
// not seen before, of the caller's own user (the kernel gives no one
// else's unless tether is root), each read once in the run: what was
// found is kept by PID and start time. From a TERM on, and in the
// cleanup, every listing reads every environment again, as a scan of
// the whole table does, so that nothing is left to what the earlier
// ticks saw.
type tickState struct {
	// table takes the snapshots, which leave out the processes there
	// were before the command: a member descends from the command, and
	// none of them can be one (but one of the same session that moved
	// into the command's group later, which no shell does, would not be
	// seen). On Linux it reads again only those started since the
	// command. since says the command's start has been given to it.
	table *ptree.Table
	since bool
	// snap and tree are the snapshot the listing under way was built
	// from, and what below found in it, for strays to go on with.
	snap *ptree.Snapshot
	tree map[procid.ID]bool
	// carries says, of each process whose environment was read,
	// whether it carries the run id.
	carries map[procid.ID]bool
	// scan: every listing from now on reads every environment.
	scan bool
}

// scanFromNow has every listing from now on read every environment for
// the run id: the tree is about to scatter (a TERM), or is being ended.
func (r *supervisor) scanFromNow() { r.tick.scan = true }

// snapshot takes the listing's snapshot of the process table.
func (r *supervisor) snapshot() *ptree.Snapshot {
	if r.tick.table == nil {
		// Not made before the command started (contain): every process
		// is read at each snapshot until the command's start is known.
		r.tick.table = ptree.NewTable(proc.Host())
	}
	snap, err := r.tick.table.Snapshot()
	if err != nil {
		trace.Printf("process table not read: %v", err)
		return ptree.EmptySnapshot()
	}
	return snap
}

// below lists tether's descendants but the watchdog's, by their parent links in
// the listing's snapshot, and the members of the command's process
// group while the command is unreaped: once it is, its PID, and with it
// the group's number, may be another's.
func (r *supervisor) below() runtree.Source {
	return runtree.SourceFunc(func() ([]procid.ID, bool) {
		snap := r.snapshot()
		r.tick.snap = snap
		out := r.belowIn(snap, r.skip())
		r.tick.tree = make(map[procid.ID]bool, len(out))
		for _, m := range out {
			r.tick.tree[m] = true
		}
		return out, false
	})
}

func (r *supervisor) belowIn(snap *ptree.Snapshot, skip int) []procid.ID {
	pgid := r.child
	if r.done {
		pgid = 0
	}
	if r.cfg.SoleReaper {
		return snap.Subtree([]int{os.Getpid()}, skip, pgid)
	}
	// The calling program's other children are not the run's: the
	// walk starts at the command.
	if r.done {
		return nil
	}
	var out []procid.ID
	if p, ok := snap.Process(r.child); ok && !p.Zombie {
		out = append(out, procid.ID{PID: r.child, StartTime: p.StartTime})
	}
	return append(out, snap.Subtree([]int{r.child}, skip, pgid)...)
}

// beforeReap writes the tree down while the command, exited but not yet
// reaped, still holds its PID: the group's members are on that list, for
// the cleanup, which no longer looks the group up by its number. The
// first time the command is seen, its start time gives the table its
// moment.
func (r *supervisor) beforeReap() {
	if !r.unreaped() {
		return
	}
	st, err := proc.Host().Stat(r.child)
	if err != nil {
		return
	}
	if !r.tick.since {
		r.tick.since = true
		if r.tick.table == nil {
			r.tick.table = ptree.NewTable(proc.Host())
		}
		r.tick.table.Since(st.StartTime)
	}
	if st.Zombie() {
		r.record()
	}
}

// strays are the processes of the run that left tether's tree: those
// carrying its run id, and those on the list last written down (renamed
// or env-cleared ones, the command's group) that are still the same
// processes, with their descendants, all from the snapshot below was
// listed from: it is looked at right after below.
func (r *supervisor) strays() runtree.Source { return runtree.SourceFunc(r.strayMembers) }

func (r *supervisor) strayMembers() ([]procid.ID, bool) {
	snap := r.tick.snap
	if snap == nil {
		snap = r.snapshot()
	}
	r.tick.snap = nil
	var ms []procid.ID
	if r.tick.scan {
		ms, _ = ptree.Scan(proc.Host(), []string{r.entry()})
	} else {
		ms = r.carriers(snap)
	}
	var roots []int
	for _, m := range r.kept {
		if snap.Alive(m) {
			ms = append(ms, m)
			roots = append(roots, m.PID)
		}
	}
	r.tick.tree = nil
	return append(ms, snap.Subtree(roots, 0, 0)...), false
}

// carriers are the processes of snap that carry the run id, as far as
// their environments were read: those of the caller's user (any, as
// root) that below did not find, each read the first time it is seen
// and never again. A read that may come out otherwise later (an execve
// under way) is not kept.
func (r *supervisor) carriers(snap *ptree.Snapshot) []procid.ID {
	fs := proc.Host()
	entry := r.entry()
	self, uid, root := os.Getpid(), os.Getuid(), os.Geteuid() == 0
	was := r.tick.carries
	now := make(map[procid.ID]bool, len(was))
	var out []procid.ID
	snap.Each(func(p proc.Process) {
		m := procid.ID{PID: p.PID, StartTime: p.StartTime}
		if p.PID == self || p.Zombie || r.tick.tree[m] || !root && p.UID >= 0 && p.UID != uid {
			return
		}
		ours, known := was[m]
		if !known {
			env, err := fs.Environ(p.PID)
			if errors.Is(err, proc.ErrGone) || errors.Is(err, proc.ErrExecuting) {
				return
			}
			ours = err == nil && slices.Contains(env, entry)
		}
		now[m] = ours
		if ours {
			out = append(out, m)
		}
	})
	r.tick.carries = now
	return out
}

// contain refuses a containment: it needs Linux's full path. Without
// one, the last thing prepared before the command starts, it has the
// tick's table take down the processes there are: none of them can be
// the run's.
func (r *supervisor) contain(path string, args []string, _ *syscall.ProcAttr) (string, []string, error) {
	if r.cfg.Contain != NoContainment {
		return "", nil, containFailed(r.cfg.Contain, []string{"cgroup and pidns: Linux only"})
	}
	r.tick.table = ptree.NewTable(proc.Host())
	r.tick.table.Before()
	return path, args, nil
}

// Exec refuses: there is no parent-death signal to arm before the exec,
// and no process left to watch the command after it.
func Exec(cmd *exec.Cmd, _ ExecOptions) error {
	if err := checkExec(cmd); err != nil {
		return err
	}
	return &StartError{Err: fmt.Errorf("exec in place needs a parent-death signal, which this platform does not have (Supervise covers the command with the watchdog): %w", errUnsupported)}
}

// adoptsOrphans: with no subreaper, orphans go to init.
const adoptsOrphans = false

// errUnsupported is returned where the platform has no parent-death
// signal: an [errors.ErrUnsupported], which is how a caller tells it.
var errUnsupported error = unsupported{}

// unsupported is errUnsupported's type: made without fmt, whose first
// use at start-up costs every run of tether.
type unsupported struct{}

func (unsupported) Error() string {
	return "tethering a child needs a parent-death signal, which only Linux has"
}

func (unsupported) Unwrap() error { return errors.ErrUnsupported }

// forkExec starts the command: there is no cgroup to be born in here.
func (r *supervisor) forkExec(path string, attr *syscall.ProcAttr) (int, error) {
	return syscall.ForkExec(path, r.argv, attr)
}

// bornIn has nothing to do: there is no cgroup here.
func bornIn(*syscall.SysProcAttr, int) {}

// noteSpawner has nothing to note: no search here reads a thread's
// children.
func noteSpawner() {}

// lastPID is unknown here: strays are searched among every process.
func lastPID() (int, bool) { return 0, false }

// lastPIDs: see lastPID.
func lastPIDs() bool { return false }

// strays searches every process the caller may read for the run ids of
// cs, as macOS allows: its table and each environment (kern.procargs2),
// those started before the oldest child left out. A process in the
// middle of an execve cannot be told here (executing is empty).
func (h *Host) strays(cs []*Child, _, _ int, _ bool, known func(int) bool) (vs []ptree.Valued, executing []int, spanned, full bool) {
	since, _ := strayed(cs)
	runs := make(map[string]bool, len(cs))
	for _, c := range cs {
		runs[c.cfg.RunID] = true
	}
	all, executing := ptree.ScanValues(proc.Host(), nil, marker.RunIDVar)
	for _, v := range all {
		if runs[v.Value] && v.StartTime >= since && (known == nil || !known(v.PID)) {
			vs = append(vs, v)
		}
	}
	return vs, executing, false, true
}

// platformGuarantees are the portable path's: the watchdog alone, where
// there is one.
var platformGuarantees = Guarantees{}

// pidfds: no signal goes through one on the portable path.
func pidfds() bool { return false }

// cgroupsHere refuses: a child born in a cgroup needs Linux's full path.
func cgroupsHere() error { return errCgroupsPortable }

var errCgroupsPortable = errors.New("a cgroup of its own needs Linux (not the portable path)")
