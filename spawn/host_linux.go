package spawn

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tetherproc/tether/internal/cgroup"
	"github.com/tetherproc/tether/internal/exitcode"
	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/registry"
	"github.com/tetherproc/tether/internal/trace"
	"github.com/tetherproc/tether/internal/watchdog"
	"github.com/tetherproc/tether/probe"
)

// Host is a Go program's supervisor of the children it starts over its
// life (an MCP host's tool servers, a dev-server manager's servers, a
// test harness's fixtures): made once per program with [NewHost], it
// starts each child from an [exec.Cmd] that stays the caller's, ties it
// to the program, and ends it with its whole tree when asked ([Child.Stop],
// [Host.Close]) or when the program dies.
//
// It takes nothing that is not its own. It never waits for a child
// (cmd.Wait is the caller's, as with exec.Cmd.Start), never calls
// wait4(-1), signals only the trees it started, and leaves the process's
// signal dispositions and flags as they were: the program's other
// exec.Cmds run beside it untouched. Each child is stamped with a run id
// and a name of its own (the markers), forked from one long-lived locked
// thread with a parent-death signal and in a process group of its own,
// and, with [Config.Contain], born in a cgroup of its own.
//
// Should the program be killed with SIGKILL (by the OOM killer, a CI
// runner's timeout), which no cleanup code survives, the parent-death
// signal reaches the children, and one watchdog process for the whole
// program ([HostOptions.Reexec]), told of each child's run, group and
// cgroup as it starts, ends what the children left: grandchildren in
// sessions of their own, renamed ones, daemons. A program started again
// after a crash finds what an earlier instance left by its name with
// reclaim.Reclaim.
//
// A Host is safe for concurrent use.
type Host struct {
	opts HostOptions

	mu       sync.Mutex
	children map[string]*Child // by run id, until each is over
	closed   bool
	// wd is the host's watchdog, started with the first child (nil
	// without Reexec); watchdogs counts those started.
	wd        *watchdog.Watchdog
	watchdogs int
	// quit ends the keeper, which kept (done) the list of the trees
	// for the watchdog, and the run records.
	quit          chan struct{}
	keeper        sync.WaitGroup
	keeperStarted bool
	closeOnce     sync.Once
	closeErr      error
}

// Child is one child a [Host] started: its command, and its run.
type Child struct {
	// Cmd is the child's command, started: wait for it with Cmd.Wait as
	// after exec.Cmd.Start; the Host never does.
	Cmd *exec.Cmd

	cfg   Config
	host  *Host
	pid   int
	start uint64 // the child's start time: its PID is its own while it matches
	group *cgroup.Group

	// Guarded by host.mu: the tree as last listed (for the watchdog and
	// the record), the run's record once written (recTried), whether
	// the child's group was said to be gone, and whether a Stop began.
	recorded  []proc.Member
	rec       *registry.Writer
	recTried  bool
	groupGone bool
	stopping  bool

	stopOnce sync.Once
	stopErr  error
}

// Config is the child's configuration, with its defaults filled in: its
// run id and name among them. To start the child again with it, clear
// RunID first: a run id in use is refused.
func (c *Child) Config() Config { return c.cfg }

// RunID is the child's run id, which it and everything it starts carry
// as TETHER_RUN_ID: what reclaim.Filter.RunID selects.
func (c *Child) RunID() string { return c.cfg.RunID }

// Name is the name the child is stamped with: what reclaim.Filter.Name
// selects.
func (c *Child) Name() string { return c.cfg.Name }

// hostKeepEvery is how often a Host lists its children's trees for the
// watchdog and the run records, as a supervised run does (recordEvery).
const hostKeepEvery = 250 * time.Millisecond

// NewHost makes the program's Host. Nothing is started until the first
// child is: a Host that never starts one costs nothing.
func NewHost(opts HostOptions) (*Host, error) {
	return &Host{opts: opts, children: map[string]*Child{}, quit: make(chan struct{})}, nil
}

// Start tethers cmd and starts it, in place of [exec.Cmd.Start], as
// [Start] does, and makes it one of the Host's children: its run is
// told to the watchdog, its tree is listed from now on, and [Child.Stop]
// or [Host.Close] ends it whole. Of cfg the stamping fields count (Name,
// Markers, Signal, RunID; the supervisor stamped is this program), Grace
// (between TERM and KILL when it is stopped) and Contain: ContainCgroup
// has the child born in a cgroup of its own, which no descendant leaves
// and which is killed whole, or fails; ContainAuto does so where the
// machine allows it and starts the child uncontained elsewhere;
// ContainPIDNamespace is refused (the namespace's init would stand
// between the program and cmd, whose Wait would wait for the init).
//
// A cmd made by [exec.CommandContext] has its Cancel replaced: the
// context's end stops the child's whole tree as [Child.Stop] does, TERM
// then Grace then KILL, with cmd.WaitDelay (when set) as Stop's deadline;
// cmd.Wait returns once it is done.
func (h *Host) Start(cmd *exec.Cmd, cfg Config) (*Child, error) {
	if cfg.Contain == ContainPIDNamespace {
		return nil, errors.New("spawn: Host.Start: a PID namespace is not for a child of a host program (cmd.Wait would wait for its init): use ContainCgroup")
	}
	if cmd.Process != nil {
		return nil, errors.New("spawn: Host.Start: " + cmd.Path + " already started")
	}
	if cfg.Grace < 0 {
		return nil, fmt.Errorf("spawn: Host.Start: Grace %v is negative", cfg.Grace)
	}
	if a := cmd.SysProcAttr; a != nil && (a.Setsid || a.Setctty || a.Foreground || a.Pgid != 0 || a.UseCgroupFD) {
		return nil, fmt.Errorf("spawn: Host.Start: %s: SysProcAttr's Setsid, Setctty, Foreground, Pgid and UseCgroupFD are the Host's to set (the child's process group and cgroup are its run's)", cmd.Path)
	}
	cfg, err := cfg.resolve(cmd.Path)
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, ErrHostClosed
	}
	if h.children[cfg.RunID] != nil {
		return nil, fmt.Errorf("spawn: Host.Start: run id %s is %s's, still running (clear Config.RunID to have a new one made)", cfg.RunID, h.children[cfg.RunID].cfg.Name)
	}
	if err := h.watch(); err != nil {
		return nil, err
	}
	c := &Child{Cmd: cmd, cfg: cfg, host: h}
	if err := c.contain(); err != nil {
		return nil, err
	}
	if cmd.Cancel != nil {
		// Made by exec.CommandContext, whose own Cancel kills the child
		// alone: its context's end stops the whole tree instead, within
		// cmd.WaitDelay when one is set (past it, KILL to every member).
		cmd.Cancel = func() error {
			ctx, cancel := context.Background(), context.CancelFunc(func() {})
			if cmd.WaitDelay > 0 {
				ctx, cancel = context.WithTimeout(ctx, cmd.WaitDelay)
			}
			defer cancel()
			return c.Stop(ctx)
		}
	}
	// Told before the child exists: there is no moment at which it runs
	// unwatched.
	h.wd.Run(cfg.RunID, cfg.Grace)
	h.wd.RunCgroup(cfg.RunID, c.group.Path())
	cmd.Env = cfg.environ(cmd.Env)
	// A copy: one SysProcAttr shared by several commands is not given
	// one child's cgroup.
	attr := syscall.SysProcAttr{}
	if cmd.SysProcAttr != nil {
		attr = *cmd.SysProcAttr
	}
	cmd.SysProcAttr = &attr
	cfg.arm(cmd.SysProcAttr)
	if c.group != nil {
		cmd.SysProcAttr.UseCgroupFD, cmd.SysProcAttr.CgroupFD = true, c.group.FD()
	}
	if err := onSpawner(cmd); err != nil {
		h.wd.RunOver(cfg.RunID)
		c.group.Release()
		return nil, fmt.Errorf("spawn: start %s: %w", cmd.Path, err)
	}
	c.pid = cmd.Process.Pid
	// Read before the caller can reap it: its PID is its own until then.
	if st, err := proc.Host().Stat(c.pid); err == nil {
		c.start = st.StartTime
	}
	h.wd.RunGroup(cfg.RunID, c.pid)
	h.children[cfg.RunID] = c
	trace.Printf("host: started %s as %d (run %s, name %s)", cmd.Path, c.pid, cfg.RunID, cfg.Name)
	return c, nil
}

// contain makes the child's cgroup, with Config.Contain.
func (c *Child) contain() error {
	mode := c.cfg.Contain
	if mode != ContainCgroup && mode != ContainAuto {
		return nil
	}
	g, err := cgroup.New(c.cfg.RunID, c.cfg.environ([]string{}))
	switch {
	case err == nil:
		c.group = g
	case mode == ContainCgroup:
		return containFailed(mode, []string{"cgroup: " + err.Error()})
	default:
		trace.Printf("host: %s not contained: cgroup: %v", c.cfg.Name, err)
	}
	return nil
}

// watch starts, with the first child, what covers the children: the
// watchdog (with Reexec) and the keeper. Under h.mu.
func (h *Host) watch() error {
	if h.watchdogs == 0 && h.opts.Reexec {
		if !initCalled {
			// The program started again would run its main, not
			// the watchdog.
			return errors.New("spawn: Host with Reexec: the program's main must call spawn.Init first")
		}
		wd, err := watchdog.StartHost(selfPath(), nil, nil)
		if err != nil {
			return fmt.Errorf("spawn: start the host's watchdog: %w", err)
		}
		h.wd, h.watchdogs = wd, 1
		trace.Printf("host: watchdog %d started", wd.PID())
	}
	if !h.keeperStarted {
		h.keeperStarted = true
		h.keeper.Add(1)
		go h.keep()
	}
	return nil
}

// keep lists the children's trees every hostKeepEvery until Close: for
// the watchdog, which ends from the list what no scan finds (a renamed
// grandchild that left its group), and for each run's record. A run
// whose child is gone and left nothing is over by itself.
func (h *Host) keep() {
	defer h.keeper.Done()
	tick := time.NewTicker(hostKeepEvery)
	defer tick.Stop()
	for {
		select {
		case <-h.quit:
			return
		case <-tick.C:
		}
		for _, c := range h.list() {
			c.finishOnce()
		}
	}
}

// list writes every child's tree down and returns the children whose
// runs are over.
func (h *Host) list() (over []*Child) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.checkWatchdog()
	var all []proc.Member
	var empty []*Child
	for _, c := range h.children {
		if !c.stopping {
			c.list()
			c.writeRecord()
			if len(c.recorded) == 0 { // the child is on it while it runs
				empty = append(empty, c)
			}
		}
		all = append(all, c.recorded...)
	}
	sortMembers(all)
	h.wd.Record(all)
	if len(empty) == 0 {
		return nil
	}
	// One scan for the runs that look over: a grandchild in a session
	// of its own may have left before any tick listed it.
	entries := make([]string, len(empty))
	for i, c := range empty {
		entries[i] = probe.RunIDVar + "=" + c.cfg.RunID
	}
	left, executing := proc.Host().ScanAny(entries)
	if len(proc.Host().OwnedPIDs(executing, os.Getuid())) > 0 {
		return nil
	}

	for _, c := range empty {
		if !slices.ContainsFunc(left, c.carries) && len(c.group.Members()) == 0 {
			c.stopping = true
			over = append(over, c)
		}
	}
	return over
}

// sortMembers orders ms by PID: the watchdog's list is written only when
// it changed, and the map of children has no order of its own.
func sortMembers(ms []proc.Member) {
	slices.SortFunc(ms, func(a, b proc.Member) int { return a.PID - b.PID })
}

// carries reports whether m carries the child's run id: read again, m
// being one of a scan's finds.
func (c *Child) carries(m proc.Member) bool {
	env, err := proc.Host().Environ(m.PID)
	return err == nil && slices.Contains(env, probe.RunIDVar+"="+c.cfg.RunID)
}

// list lists the child's tree, keeping the members listed before that
// are still the same processes: an orphan leaves the child's subtree
// (the program is no subreaper) but not the list. Under h.mu.
func (c *Child) list() {
	ms, held := c.tree(c.recorded)
	if !held && !c.groupGone {
		c.groupGone = true
		c.host.wd.RunGroupGone(c.cfg.RunID)
	}
	c.recorded = ms
}

// tree lists the child's live tree: the child while it runs, its
// subtree while its PID is its own (held: it runs, or exited unreaped),
// and those of known still the same processes, with their subtrees.
func (c *Child) tree(known []proc.Member) (ms []proc.Member, held bool) {
	fs := proc.Host()
	st, err := fs.Stat(c.pid)
	if held = err == nil && c.start != 0 && st.StartTime == c.start; held {
		if !st.Zombie() {
			ms = append(ms, proc.Member{PID: c.pid, StartTime: c.start})
		}
		ms = append(ms, fs.Subtree(c.pid, 0)...)
	}
	return proc.Unique(append(ms, fs.AliveWithSubtrees(known)...)), held
}

// writeRecord writes the run's record the first time its tree is
// listed, and its members after: the record is what has tether check and
// reclaim know a renamed member. A child over before the first tick
// costs nothing.
func (c *Child) writeRecord() {
	ids := make([]registry.ID, len(c.recorded))
	for i, m := range c.recorded {
		ids[i] = registry.ID(m)
	}
	if c.rec != nil {
		c.rec.Members(ids)
		return
	}
	if c.recTried || len(ids) == 0 {
		return
	}
	c.recTried = true
	c.rec, _ = registry.Create(registry.Record{
		RunID:      c.cfg.RunID,
		Name:       c.cfg.Name,
		Supervisor: registry.ID(c.cfg.Supervisor),
		Watchdog:   c.host.watchdogID(),
		Cgroup:     c.group.Path(),
		Command:    c.Cmd.Args,
		Stamp:      c.cfg.environ([]string{}),
		Members:    ids,
	})
}

// held reports whether the child's PID is still its own: it runs, or it
// exited and is not yet reaped. Its process group's number is then its
// own too.
func (c *Child) held() bool {
	st, err := proc.Host().Stat(c.pid)
	return err == nil && c.start != 0 && st.StartTime == c.start
}

// watchdogID names the host's watchdog in a record. Under h.mu.
func (h *Host) watchdogID() registry.ID {
	if pid := h.wd.PID(); pid != 0 && h.wd.Alive() {
		if st, err := proc.Host().Stat(pid); err == nil {
			return registry.ID{PID: pid, StartTime: st.StartTime}
		}
	}
	return registry.ID{}
}

// checkWatchdog replaces a watchdog that died (kill -9, the OOM killer),
// telling the new one every run. It is the program's own child: waited
// for by its PID alone. Under h.mu.
func (h *Host) checkWatchdog() {
	if !h.wd.Alive() {
		return
	}
	var ws unix.WaitStatus
	if pid, err := unix.Wait4(h.wd.PID(), &ws, unix.WNOHANG, nil); err != nil || pid == 0 {
		return
	}
	old := h.wd
	old.Reaped()
	old.Stop()
	if h.watchdogs >= maxWatchdogs {
		trace.Printf("host: watchdog %d died (status %d); %d started already: going on without one", old.PID(), exitcode.Wait(syscall.WaitStatus(ws)), h.watchdogs)
		h.wd = nil
		return
	}
	var runs []watchdog.HostRun
	var all []proc.Member
	for id, c := range h.children {
		run := watchdog.HostRun{RunID: id, Grace: c.cfg.Grace, Cgroup: c.group.Path()}
		if c.held() {
			run.Group = c.pid
		}
		runs = append(runs, run)
		all = append(all, c.recorded...)
	}
	sortMembers(all)
	wd, err := watchdog.StartHost(selfPath(), runs, all)
	if err != nil {
		trace.Printf("host: watchdog %d died; no new one: %v", old.PID(), err)
		h.wd = nil
		return
	}
	h.wd = wd
	h.watchdogs++
	for _, c := range h.children {
		c.rec.Watchdog(h.watchdogID())
	}
	trace.Printf("host: watchdog %d died: replaced by %d", old.PID(), wd.PID())
}

// Stop ends the child's whole tree: TERM to its process group and to
// every process of its run (found by its run id, by the list of its tree
// kept since it started, by its cgroup), up to the child's Grace for them
// to exit, then KILL, and it returns once each is gone. A child that
// exited on its own is stopped all the same: what it left behind is
// ended. When ctx is done before the tree has gone, the grace ends there
// (KILL at once, and what is still alive a second later is reported in a
// *StopError). The child itself is left for Cmd.Wait to reap; call Stop
// before Wait when the command's output goes to a buffer or a pipe, for
// a grandchild that holds it open would keep Wait waiting. Stop
// may be called more than once, and from several goroutines; each call
// returns the first one's result.
func (c *Child) Stop(ctx context.Context) error {
	c.host.mu.Lock()
	c.stopping = true
	c.host.mu.Unlock()
	c.stopOnce.Do(func() {
		c.stopErr = c.end(ctx)
		c.finish()
	})
	return c.stopErr
}

// finishOnce ends the bookkeeping of a run that is over by itself.
func (c *Child) finishOnce() { c.stopOnce.Do(c.finish) }

// end is Stop's escalation.
func (c *Child) end(ctx context.Context) error {
	fs := proc.Host()
	c.host.mu.Lock()
	if !c.groupGone {
		c.list()
	}
	recorded := slices.Clone(c.recorded)
	c.host.mu.Unlock()
	groupSignal := func(sig syscall.Signal) bool {
		return c.held() && unix.Kill(-c.pid, sig) == nil
	}
	// The group at once, also what of it is not listed yet; each member
	// gets one TERM, the group's or its own.
	grouped := groupSignal(syscall.SIGTERM)
	entry := []string{probe.RunIDVar + "=" + c.cfg.RunID}
	var left []proc.Member
	ok := proc.Escalation{
		Grace: c.cfg.Grace,
		Hurry: ctx.Done(),
		List: func() ([]proc.Member, bool) {
			ms, executing := fs.Scan(entry)
			executing = fs.OwnedPIDs(executing, os.Getuid())
			tree, held := c.tree(recorded)
			if !held {
				c.goneGroup()
			}
			left = proc.Unique(append(append(ms, tree...), c.group.Members()...))
			// What was seen once is followed until it is gone, also
			// once its parent has been ended and it has left the
			// child's subtree.
			recorded = proc.Unique(append(recorded, left...))
			return left, len(executing) > 0
		},
		Send: func(m proc.Member, sig syscall.Signal) error {
			if sig == syscall.SIGTERM && grouped {
				if st, err := fs.Stat(m.PID); err == nil && st.StartTime == m.StartTime && st.PGID == c.pid {
					return nil // the group's TERM reached it
				}
			}
			return fs.Signal(m, sig)
		},
		KillAll: func() {
			c.group.KillAll()
			groupSignal(syscall.SIGKILL)
		},
		// Not woken by ctx: past it the members have had KILL, and a
		// wait that returned at once would spin over the scan.
		Wait: func(deadline time.Time) {
			time.Sleep(min(5*time.Millisecond, max(time.Millisecond, time.Until(deadline))))
		},
		What: "stop of " + c.cfg.Name + " (run " + c.cfg.RunID + ")",
	}.Run()
	if !ok {
		err := fmt.Errorf("still alive %v after SIGKILL", proc.KillWait)
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		pids := make([]int, len(left))
		for i, m := range left {
			pids[i] = m.PID
		}
		return &StopError{Name: c.cfg.Name, RunID: c.cfg.RunID, Left: pids, Err: err}
	}
	return nil
}

// goneGroup tells the watchdog, once, that the child is reaped: its
// group's number is no longer the run's. Under h.mu or not.
func (c *Child) goneGroup() {
	h := c.host
	h.mu.Lock()
	defer h.mu.Unlock()
	if !c.groupGone {
		c.groupGone = true
		h.wd.RunGroupGone(c.cfg.RunID)
	}
}

// finish ends the run's bookkeeping, once: the watchdog forgets it, its
// record and cgroup go, and the Host lets go of it.
func (c *Child) finish() {
	h := c.host
	h.mu.Lock()
	defer h.mu.Unlock()
	h.wd.RunOver(c.cfg.RunID)
	c.rec.Remove()
	c.group.Release()
	delete(h.children, c.cfg.RunID)
	trace.Printf("host: run %s of %s over", c.cfg.RunID, c.cfg.Name)
}

// Children lists the Host's children whose runs are not over: started,
// and neither stopped nor gone with all they started.
func (h *Host) Children() []*Child {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]*Child, 0, len(h.children))
	for _, c := range h.children {
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b *Child) int { return a.pid - b.pid })
	return out
}

// Close stops every child still running, each with its whole tree, side
// by side (see [Child.Stop]), then the watchdog, and refuses new
// children from then on. Once it returns the Host has no goroutine and
// no process left. The error joins the children's StopErrors; a second
// Close waits for the first and returns the same.
func (h *Host) Close(ctx context.Context) error {
	h.closeOnce.Do(func() { h.closeErr = h.close(ctx) })
	return h.closeErr
}

func (h *Host) close(ctx context.Context) error {
	h.mu.Lock()
	h.closed = true
	h.mu.Unlock()
	children := h.Children()
	errs := make([]error, len(children))
	done := make(chan int)
	for i, c := range children {
		go func() {
			errs[i] = c.Stop(ctx)
			done <- i
		}()
	}
	for range children {
		<-done
	}
	close(h.quit)
	h.keeper.Wait()
	h.mu.Lock()
	h.wd.Stop()
	h.wd = nil
	h.mu.Unlock()
	return errors.Join(errs...)
}
