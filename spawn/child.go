//go:build linux || darwin

package spawn

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"runtime"
	"slices"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/tetherproc/tether/internal/cgroup"
	"github.com/tetherproc/tether/internal/pidfd"
	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/ptree"
	"github.com/tetherproc/tether/internal/trace"
	"github.com/tetherproc/tether/procid"
)

// Child is one child a [Host] started: its command, and its run.
type Child struct {
	// Cmd is the child's command, started: wait for it with Cmd.Wait as
	// after exec.Cmd.Start; the Host never does.
	Cmd *exec.Cmd

	// run is the child's run, guarded by host.mu: its tree as last
	// listed (for the watchdog and the record), its record, its cgroup.
	run
	host    *Host
	pid     int
	started uint64 // the child's start time: its PID is its own while it matches
	// handle is a pidfd on the child, opened as it was forked (nil
	// without pidfds): whether it was reaped, whether it is done, and
	// its signals, without a read of /proc. Closed by finish.
	handle *pidfd.Handle

	// Guarded by host.mu: whether the child's group was said to be
	// gone, and whether its end was claimed (by its Stop, the Host's
	// Close, or the keeper that found its run over by itself).
	groupGone bool
	stopping  bool

	// stopped is closed once the run is over and stopErr set.
	stopped chan struct{}
	stopErr error
}

// Options are the child's options, with their defaults filled in: its
// run id and name among them. To start the child again with them, clear
// RunID first: a run id in use is refused.
func (c *Child) Options() ChildOptions { return c.cfg.childOptions() }

// RunID is the child's run id, which it and everything it starts carry
// as TETHER_RUN_ID: what reclaim.Filter.RunID selects.
func (c *Child) RunID() string { return c.cfg.RunID }

// Name is the name the child is stamped with: what reclaim.Filter.Name
// selects.
func (c *Child) Name() string { return c.cfg.Name }

// contain makes the child's cgroup, with ChildOptions.Contain, where the
// child can be born in it (clone3 with CLONE_INTO_CGROUP, Linux 5.7): a
// child of a program enters no group on its own.
func (c *Child) contain() error {
	mode := c.cfg.Contain
	if mode != ContainCgroup && mode != ContainAuto {
		return nil
	}
	err := cgroupsHere()
	if err == nil {
		err = c.newCgroup()
	}
	if err == nil {
		if err = c.group.BornIn(); err != nil {
			c.group.Release()
			c.group = nil
		}
	}
	switch {
	case err == nil:
	case mode == ContainCgroup:
		return containFailed(mode, []string{"cgroup: " + err.Error()})
	default:
		trace.Printf("host: %s not contained: cgroup: %v", c.cfg.Name, err)
	}
	return nil
}

// cancelWithContext has a cmd made by exec.CommandContext, whose own
// Cancel kills the child alone, stop the whole tree when its context
// ends instead, within cmd.WaitDelay when one is set (past it, KILL to
// every member).
func (c *Child) cancelWithContext() {
	cmd := c.Cmd
	if cmd.Cancel == nil {
		return
	}
	cmd.Cancel = func() error {
		ctx, cancel := context.Background(), context.CancelFunc(func() {})
		if cmd.WaitDelay > 0 {
			ctx, cancel = context.WithTimeout(ctx, cmd.WaitDelay)
		}
		defer cancel()
		return c.Stop(ctx)
	}
}

// start stamps the command and forks it from the spawner thread, the
// watchdog told of its run before it exists: there is no moment at which
// it runs unwatched. Under host.mu.
func (c *Child) start() error {
	cmd, wd := c.Cmd, c.guard.wd
	wd.Run(c.cfg.RunID, c.cfg.Grace)
	wd.RunCgroup(c.cfg.RunID, c.group.Path())
	cmd.Env = c.cfg.environ(cmd.Env)
	// A copy: one SysProcAttr shared by several commands is not given
	// one child's cgroup.
	attr := syscall.SysProcAttr{}
	if cmd.SysProcAttr != nil {
		attr = *cmd.SysProcAttr
	}
	cmd.SysProcAttr = &attr
	armChild(c.cfg, cmd.SysProcAttr)
	if c.group != nil {
		bornIn(cmd.SysProcAttr, c.group.FD())
	}
	if err := onSpawner(cmd); err != nil {
		wd.RunOver(c.cfg.RunID)
		c.group.Release()
		return fmt.Errorf("spawn: start %s: %w", cmd.Path, err)
	}
	c.pid = cmd.Process.Pid
	// Read before the caller can reap it: its PID is its own until then.
	if st, err := proc.Host().Stat(c.pid); err == nil {
		c.started = st.StartTime
		c.handle, _ = pidfd.OpenChild(c.pid)
	}
	wd.RunGroup(c.cfg.RunID, c.pid)
	return nil
}

// list lists the child's tree, with the members kept before that are
// still the same processes: an orphan leaves the child's subtree (the
// program is no subreaper) but not the list. Under host.mu.
func (c *Child) list(t *ptree.Trees) []procid.ID {
	ms, held := c.tree(t, c.kept)
	if !held && !c.groupGone {
		c.groupGone = true
		c.guard.wd.RunGroupGone(c.cfg.RunID)
	}
	return ms
}

// tree lists the child's live tree: the child while it runs, its
// subtree while its PID is its own (held: it runs, or exited unreaped),
// and those of known still the same processes, with their subtrees.
func (c *Child) tree(t *ptree.Trees, known []procid.ID) (ms []procid.ID, held bool) {
	fs := proc.Host()
	self := procid.ID{PID: c.pid, StartTime: c.started}
	// Done is asked before Reaped: a child reaped between the two is
	// then seen reaped, not held. A child not done is not reaped, and is
	// read below.
	done := c.handle != nil && c.handle.Done()
	var reaped, ok bool
	if done {
		reaped, ok = c.reaped()
	}
	switch {
	case ok && reaped:
	case ok && done:
		// A zombie with no thread left: no member, and no children.
		held = true
	default:
		st, err := fs.Stat(c.pid)
		if held = err == nil && c.started != 0 && st.StartTime == c.started; held {
			if !st.Zombie() {
				ms = append(ms, self)
			}
			ms = append(ms, t.Subtree(st)...)
		}
	}
	// Of the known, those still below the child are listed already, and
	// the child itself was just read.
	var rest []procid.ID
	for _, m := range known {
		if m != self && !slices.Contains(ms, m) {
			rest = append(rest, m)
		}
	}
	return ptree.Unique(append(ms, t.AliveWithSubtrees(rest)...)), held
}

// held reports whether the child's PID is still its own: it runs, or it
// exited and is not yet reaped. Its process group's number is then its
// own too.
func (c *Child) held() bool {
	if reaped, ok := c.reaped(); ok {
		return !reaped
	}
	st, err := proc.Host().Stat(c.pid)
	return err == nil && c.started != 0 && st.StartTime == c.started
}

// reaped asks the child's handle whether the child was reaped; ok is
// false where there is no handle to ask.
func (c *Child) reaped() (reaped, ok bool) {
	if c.handle == nil || c.started == 0 {
		return false, false
	}
	return c.handle.Reaped()
}

// member reports whether m is the child itself, and its handle.
func (c *Child) member(m procid.ID) (*pidfd.Handle, bool) {
	if c.handle != nil && m == (procid.ID{PID: c.pid, StartTime: c.started}) {
		return c.handle, true
	}
	return nil, false
}

// Stop ends the child's whole tree: TERM to its process group and to
// every process of its run, up to the child's Grace for them to exit,
// then KILL, and it returns once each is gone. The run is the child's
// subtree, what the list of its tree kept since it started still names,
// its cgroup, and the strays: a process that left the tree (a session of
// its own, its parent gone) is found by the run id it carries among the
// processes born since the Host last looked. Before each look at the
// trees the Host reads the last PID the kernel handed out, and PIDs are
// handed out in rising order, so those born in between are the PIDs
// between two such readings: a few, whatever the machine runs. The
// Host's keeper looks every quarter of a second, so a Stop reads the
// child's tree and the processes born on the machine since then, and
// nothing in proportion to the machine or to the children of the
// program's ancestors (init's, a CI runner's shell's). Where the last
// PID cannot be read (a /proc of another PID namespace) or more than
// 16,384 were born since the last look, the strays are searched among
// the children of the program's line of ancestors, where an orphan is
// re-parented, or among every process where those cannot be listed
// (hidepid), and the debug trace says so. A process that carries the
// run id but descends from another (started through a service manager)
// is not the child's tree.
//
// A child that exited on its own is stopped all the same: what it left
// behind is ended. When ctx is done before the tree has gone, the grace
// ends there (KILL at once, and what is still alive a second later is
// reported in a *StopError). The child itself is left for Cmd.Wait to
// reap; call Stop before Wait when the command's output goes to a buffer
// or a pipe, for a grandchild that holds it open would keep Wait
// waiting. Stop may be called more than once, and from several
// goroutines; each call returns the first one's result.
func (c *Child) Stop(ctx context.Context) error {
	if c.claim() {
		c.settle(c.host.end(ctx, []*Child{c})[c])
	}
	<-c.stopped
	return c.stopErr
}

// claim reports whether the caller is the first to end the child's run,
// which then settles it; every other caller waits for stopped.
func (c *Child) claim() bool {
	c.host.mu.Lock()
	defer c.host.mu.Unlock()
	if c.stopping {
		return false
	}
	c.stopping = true
	return true
}

// settle ends the run claimed by the caller: its bookkeeping goes, and
// every Stop returns err.
func (c *Child) settle(err error) {
	c.stopErr = err
	c.finish()
	close(c.stopped)
}

// groupSignal signals the child's process group while its number is the
// child's own.
func (c *Child) groupSignal(sig syscall.Signal) bool {
	return c.held() && unix.Kill(-c.pid, sig) == nil
}

// inGroup reports whether m is still the same process, in the child's
// process group.
func (c *Child) inGroup(m procid.ID) bool {
	st, err := proc.Host().Stat(m.PID)
	return err == nil && st.StartTime == m.StartTime && st.PGID == c.pid
}

// goneGroup tells the watchdog, once, that the child is reaped: its
// group's number is no longer the run's.
func (c *Child) goneGroup() {
	h := c.host
	h.mu.Lock()
	defer h.mu.Unlock()
	if !c.groupGone {
		c.groupGone = true
		c.guard.wd.RunGroupGone(c.cfg.RunID)
	}
}

// finish ends the run's bookkeeping, once: the watchdog forgets it, its
// record and cgroup go, and the Host lets go of it.
func (c *Child) finish() {
	h := c.host
	h.mu.Lock()
	defer h.mu.Unlock()
	c.guard.wd.RunOver(c.cfg.RunID)
	c.release()
	if c.handle != nil {
		c.handle.Close()
		c.handle = nil
	}
	delete(h.children, c.cfg.RunID)
	trace.Printf("host: run %s of %s over", c.cfg.RunID, c.cfg.Name)
}

// The spawner is one goroutine, locked to its OS thread for the life of
// the process: the children it forks are tied to this thread, which
// therefore must never exit.
var (
	spawnerOnce sync.Once
	spawnerReqs chan startRequest
)

type startRequest struct {
	cmd  *exec.Cmd
	done chan error
}

func spawnerLoop(ready chan<- struct{}) {
	runtime.LockOSThread()
	noteSpawner()
	close(ready)
	for req := range spawnerReqs {
		req.done <- req.cmd.Start()
	}
}

// onSpawner runs cmd.Start on the spawner thread.
func onSpawner(cmd *exec.Cmd) error {
	spawnerOnce.Do(func() {
		spawnerReqs = make(chan startRequest)
		ready := make(chan struct{})
		go spawnerLoop(ready)
		<-ready
	})
	req := startRequest{cmd: cmd, done: make(chan error, 1)}
	spawnerReqs <- req
	return <-req.done
}

// newCgroup makes the run's cgroup, stamped with the run's entries
// alone (an empty environment stamped), for the command to be born in.
func (r *run) newCgroup() error {
	g, err := cgroup.New(r.cfg.RunID, r.cfg.environ([]string{}))
	if err == nil {
		r.group = g
	}
	return err
}

// release lets go of what the run holds once it is over: its record
// and its cgroup.
func (r *run) release() {
	r.rec.Remove()
	r.group.Release()
}

// checkChild refuses what a Host cannot start as asked, naming it.
func checkChild(cmd *exec.Cmd, opts ChildOptions) error {
	if cmd.Process != nil {
		return errors.New("spawn: Host.Start: " + cmd.Path + " already started")
	}
	if err := opts.Validate(); err != nil {
		return fmt.Errorf("spawn: Host.Start: %s: %w", cmd.Path, err)
	}
	if setsRunAttrs(cmd.SysProcAttr) {
		return fmt.Errorf("spawn: Host.Start: %s: SysProcAttr's Setsid, Setctty, Foreground, Pgid and UseCgroupFD are the Host's to set (the child's process group and cgroup are its run's)", cmd.Path)
	}
	return nil
}
