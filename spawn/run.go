//go:build linux || darwin

package spawn

import (
	"fmt"
	"os"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/tetherproc/tether/internal/cgroup"
	"github.com/tetherproc/tether/internal/exitcode"
	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/registry"
	"github.com/tetherproc/tether/internal/trace"
	"github.com/tetherproc/tether/internal/watchdog"
	"github.com/tetherproc/tether/marker"
	"github.com/tetherproc/tether/procid"
)

// keepEvery is how often a run's tree is listed and written down, for its
// watchdog and its record, by Supervise and by a Host alike: a descendant
// that renamed itself or cleared its environment and is younger than this
// when the supervisor is killed with SIGKILL may be missed, unless its
// parent is still in the tree then.
const keepEvery = 250 * time.Millisecond

// run is one run's bookkeeping, the same for a Host's child and for
// Supervise: who the run is (its resolved Options), its cgroup, the list
// of its tree kept since it started, the record that list is written to,
// and the watchdog that is told of it. What differs between the two is
// how the tree is found (a subreaper's subtree, a child's) and who reaps.
type run struct {
	cfg Options
	// command is the command line the record shows.
	command []string
	// forwards says that the run's supervisor forwards signals to it and
	// ends it whole on TERM: tether run's, never a program's, whose
	// record must not have reclaim end the program through it.
	forwards bool
	// group is the run's cgroup; nil when it has none.
	group *cgroup.Group
	// kept is the tree as last written down.
	kept []procid.ID
	// rec is the run's record once written (recTried); nil without.
	rec      *registry.Writer
	recTried bool
	// guard holds the watchdog told of the run: the run's own, or its
	// Host's, shared by every child.
	guard *guard
}

// entry is the environment entry every process of the run carries.
func (r *run) entry() string { return marker.RunIDVar + "=" + r.cfg.RunID }

// keep writes the tree down: the run's record is written the first time
// there is a tree to write (what has tether check and reclaim know a
// renamed member), and its members after. A run over before that (most
// short commands) costs nothing. A directory that is refused leaves the
// run without a record (traced), as the markers alone were before; it is
// not tried again. The watchdog is fed by the caller: a Host's is told
// every child's tree at once.
func (r *run) keep(ms []procid.ID) {
	r.kept = ms
	ids := slices.Clone(ms) // the record may keep it; the caller reuses ms
	if r.rec != nil {
		r.rec.Members(ids)
		return
	}
	if r.recTried || len(ids) == 0 {
		return
	}
	r.recTried = true
	r.rec, _ = registry.Create(registry.Record{
		RunID:      r.cfg.RunID,
		Name:       r.cfg.Name,
		Supervisor: r.cfg.Supervisor,
		Watchdog:   r.guard.id(),
		Forwards:   r.forwards,
		Cgroup:     r.group.Path(),
		Command:    r.command,
		Stamp:      r.cfg.environ([]string{}),
		Members:    ids,
	})
	if r.rec != nil {
		trace.Printf("run record %s written", r.rec.Path())
	}
}

// what names the run's ending in trace lines.
func (r *run) what() string { return "end of " + r.cfg.Name + " (run " + r.cfg.RunID + ")" }

// maxWatchdogs bounds how many watchdogs a run or a Host starts: one
// that dies as soon as it starts is not started forever.
const maxWatchdogs = 8

// guard holds a watchdog, a run's or a Host's, and replaces it when it
// dies (a kill -9 of it, the OOM killer): without one, a SIGKILL of the
// supervisor would leave the trees running. A nil guard's wd is nil,
// and a nil *watchdog.Watchdog does nothing.
type guard struct {
	wd *watchdog.Watchdog
	// started counts the watchdogs started, the first among them.
	started int
}

// watchdog is the guard's watchdog; nil for a nil guard.
func (g *guard) watchdog() *watchdog.Watchdog {
	if g == nil {
		return nil
	}
	return g.wd
}

// id names the watchdog in a run's record.
func (g *guard) id() procid.ID {
	wd := g.watchdog()
	if pid := wd.PID(); pid != 0 && wd.Alive() {
		if st, err := proc.Host().Stat(pid); err == nil {
			return procid.ID{PID: pid, StartTime: st.StartTime}
		}
	}
	return procid.ID{}
}

// replace starts a watchdog in place of one that died with status ws
// (already reaped), by start, which tells the new one all the first one
// was before it starts: a supervisor killed right after the fork leaves
// it knowing the runs. It reports whether there is a new one; the
// records of the runs it watches are to be told its id.
func (g *guard) replace(ws syscall.WaitStatus, start func() (*watchdog.Watchdog, error)) bool {
	old := g.wd
	old.Reaped()
	old.Stop() // reaped: only its descriptors are closed
	g.wd = nil
	if g.started >= maxWatchdogs {
		trace.Printf("watchdog %d died (status %d); %d started already: going on without one", old.PID(), exitcode.Wait(ws), g.started)
		return false
	}
	wd, err := start()
	if err != nil {
		trace.Printf("watchdog %d died (status %d); no new one: %v", old.PID(), exitcode.Wait(ws), err)
		return false
	}
	g.wd = wd
	g.started++
	trace.Printf("watchdog %d died (status %d): replaced by %d", old.PID(), exitcode.Wait(ws), wd.PID())
	return true
}

// The run's identity: its Options with the defaults filled in, and the
// markers stamped into its command's environment.

// resolve fills in the defaults for a child running command.
func (c Options) resolve(command string) (Options, error) {
	// What was given was validated by the entry point (Validate); what
	// is filled in here is valid by construction.
	if c.Name == "" {
		c.Name = marker.NameFor(command)
	}
	if c.Signal == 0 {
		c.Signal = syscall.SIGTERM
	}
	if c.RunID == "" {
		c.RunID = marker.NewRunID()
	}
	if c.Supervisor.PID == 0 {
		s, err := selfOrParent(false)
		if err != nil {
			return c, err
		}
		c.Supervisor = s
	}
	return c, nil
}

// selfOrParent names this process, or its parent, for TETHER_SUPERVISOR:
// its PID in this process's own namespace (getpid, getppid), and its
// start time read through /proc/self, whose numbering may be another
// namespace's (a new PID namespace with the old /proc still mounted).
func selfOrParent(parent bool) (procid.ID, error) {
	if !parent {
		return selfID()
	}
	fs := proc.Host()
	self, err := fs.SelfStat()
	if err != nil {
		return procid.ID{}, fmt.Errorf("read own start time: %w", err)
	}
	st, err := fs.Stat(self.PPID) // the parent, as /proc numbers it
	if err != nil {
		return procid.ID{}, fmt.Errorf("read start time of parent %d: %w", os.Getppid(), err)
	}
	return procid.ID{PID: os.Getppid(), StartTime: st.StartTime}, nil
}

// selfID is this process, read once: a Host stamps it on every child.
var selfID = sync.OnceValues(func() (procid.ID, error) {
	self, err := proc.Host().SelfStat()
	if err != nil {
		return procid.ID{}, fmt.Errorf("read own start time: %w", err)
	}
	return procid.ID{PID: os.Getpid(), StartTime: self.StartTime}, nil
})

// selfPIDNamespace is this process's PID namespace, read once: unshare
// and setns change only where its children are born.
var selfPIDNamespace = sync.OnceValues(func() (uint64, error) { return proc.Host().SelfPIDNamespace() })

// environ stamps env (the calling process's environment when nil).
func (c Options) environ(env []string) []string {
	if env == nil {
		env = os.Environ()
	}
	st := c.Stamp
	if st.PIDNamespace == 0 {
		// The supervisor is this process or its parent, in this
		// process's namespace: a check from another namespace maps its
		// PID through it.
		st.PIDNamespace, _ = selfPIDNamespace()
	}
	return c.Markers.Environ(env, st)
}

// config is the Options the Host keeps its child's run by.
func (o ChildOptions) config() Options {
	return Options{Stamp: o.Stamp, Markers: o.Markers, Signal: o.Signal, Grace: o.Grace, Contain: o.Contain}
}

// childOptions is the ChildOptions of a Host's child's resolved Options.
func (c Options) childOptions() ChildOptions {
	return ChildOptions{Stamp: c.Stamp, Markers: c.Markers, Signal: c.Signal, Grace: c.Grace, Contain: c.Contain}
}
