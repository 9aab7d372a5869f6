//go:build linux || darwin

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

	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/ptree"
	"github.com/tetherproc/tether/internal/trace"
	"github.com/tetherproc/tether/internal/watchdog"
	"github.com/tetherproc/tether/procid"
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
// and, with [ChildOptions.Contain], born in a cgroup of its own.
//
// Should the program be killed with SIGKILL (by the OOM killer, a CI
// runner's timeout), which no cleanup code survives, the parent-death
// signal reaches the children, and one watchdog process for the whole
// program (this program started again, which its main's call of [Init]
// allows), told of each child's run, group and
// cgroup as it starts, ends what the children left: grandchildren in
// sessions of their own, renamed ones, daemons. A program started again
// after a crash finds what an earlier instance left by its name with
// reclaim.Reclaim.
//
// A Host is safe for concurrent use.
type Host struct {
	// noWatchdog has the Host start none although main called Init:
	// for the tests that measure or check a Host without one.
	noWatchdog bool

	mu       sync.Mutex
	children map[string]*Child // by run id, until each is over
	closed   bool
	// guard holds the host's watchdog, started with the first child
	// (none unless main called Init), which every child's run shares.
	guard guard
	// quit ends the keeper, which keeps the list of the trees for the
	// watchdog, and the run records.
	quit          chan struct{}
	keeper        sync.WaitGroup
	keeperStarted bool
	// born is how far the search for strays by birth has come (see
	// proc.StraysBorn): every stray of a running child born up to
	// born[1], a value of proc.LastPID, was found and is in its child's
	// kept list. The next search starts at born[0], the value before,
	// so that a process whose fork was under way as born[1] was read is
	// searched for twice. bornOK is false while there are no such values
	// (a /proc that cannot give them).
	born      [2]int
	bornOK    bool
	closeOnce sync.Once
	closeErr  error
}

// ErrHostClosed is returned by [Host.Start] once [Host.Close] was called.
var ErrHostClosed = errors.New("spawn: host closed")

// Guarantees says what ties the Host's children to the program here.
func (h *Host) Guarantees() Guarantees {
	g := platformGuarantees
	g.NoPIDReuse = pidfds()
	g.Watchdog = h.watchdogOn()
	return g
}

// watchdogOn says the Host's children are covered by a watchdog.
func (h *Host) watchdogOn() bool { return reexecAllowed() && !h.noWatchdog }

// NewHost makes the program's Host. Nothing is started until the first
// child is: a Host that never starts one costs nothing. Its watchdog,
// started with the first child, is this program started again: there is
// one when the program's main calls [Init] first, and none otherwise.
func NewHost() (*Host, error) {
	return &Host{children: map[string]*Child{}, quit: make(chan struct{})}, nil
}

// Start tethers cmd and starts it, in place of [exec.Cmd.Start], and
// makes it one of the Host's children: it stamps the markers of opts
// into cmd.Env (os.Environ() when nil), arms the parent-death signal and
// a new process group through a copy of cmd.SysProcAttr (its other
// fields are kept), and starts cmd from the spawner thread, so that the
// signal fires when this program exits, not when some thread of it
// does. Its run is told to the watchdog, its tree is listed from now on,
// and [Child.Stop] or [Host.Close] ends it whole, TERM then opts.Grace
// then KILL. cmd stays the caller's: wait for it with cmd.Wait as usual.
// With opts.Contain, the child is born in a cgroup of its own (clone3
// with CLONE_INTO_CGROUP, Linux 5.7).
//
// A cmd made by [exec.CommandContext] has its Cancel replaced: the
// context's end stops the child's whole tree as [Child.Stop] does, TERM
// then Grace then KILL, with cmd.WaitDelay (when set) as Stop's deadline;
// cmd.Wait returns once it is done.
func (h *Host) Start(cmd *exec.Cmd, opts ChildOptions) (*Child, error) {
	if err := checkChild(cmd, opts); err != nil {
		return nil, err
	}
	cfg, err := opts.config().resolve(cmd.Path)
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, ErrHostClosed
	}
	if other := h.children[cfg.RunID]; other != nil {
		return nil, fmt.Errorf("spawn: Host.Start: run id %s is %s's, still running (clear ChildOptions.RunID to have a new one made)", cfg.RunID, other.cfg.Name)
	}
	if err := h.watch(); err != nil {
		return nil, err
	}
	afresh := len(h.children) == 0
	c := &Child{Cmd: cmd, host: h, run: run{cfg: cfg, command: cmd.Args, guard: &h.guard}, stopped: make(chan struct{})}
	if err := c.contain(); err != nil {
		return nil, err
	}
	c.cancelWithContext()
	if err := c.start(); err != nil {
		return nil, err
	}
	if afresh {
		// No other child, no stray: the search by birth starts afresh,
		// at the child, whose tree has every PID handed out after the
		// one before its own.
		h.born = [2]int{c.pid - 1, c.pid - 1}
		h.bornOK = lastPIDs()
	}
	h.children[cfg.RunID] = c
	trace.Printf("host: started %s as %d (run %s, name %s)", cmd.Path, c.pid, cfg.RunID, cfg.Name)
	return c, nil
}

// watch starts, with the first child, what covers the children: the
// watchdog (when main called Init) and the keeper. Under h.mu.
func (h *Host) watch() error {
	if h.guard.started == 0 && h.watchdogOn() {
		wd, err := watchdog.StartHost(selfPath(), nil, nil)
		if err != nil {
			return fmt.Errorf("spawn: start the host's watchdog: %w", err)
		}
		h.guard = guard{wd: wd, started: 1}
		trace.Printf("host: watchdog %d started", wd.PID())
	}
	if !h.keeperStarted {
		h.keeperStarted = true
		h.keeper.Add(1)
		go h.keep()
	}
	return nil
}

// keep lists the children's trees every keepEvery until Close: for the
// watchdog, which ends from the list what no scan finds (a renamed
// grandchild that left its group), and for each run's record. A run
// whose child is gone and left nothing is over by itself.
func (h *Host) keep() {
	defer h.keeper.Done()
	tick := time.NewTicker(keepEvery)
	defer tick.Stop()
	for {
		select {
		case <-h.quit:
			return
		case <-tick.C:
		}
		for _, c := range h.list() {
			c.settle(nil)
		}
	}
}

// list writes every child's tree down, with the strays of its run, for
// its record and for the watchdog, and returns the children whose runs
// are over: neither a tree nor a stray left.
func (h *Host) list() (over []*Child) {
	// Read before the trees: what is born later is the next search's.
	mark, markOK := lastPID()
	look := ptree.Look(proc.Host()) // one look at every child's tree
	h.mu.Lock()
	h.checkWatchdog()
	trees := map[*Child][]procid.ID{}
	var cs, empty []*Child
	for _, c := range h.children {
		if !c.stopping {
			trees[c] = c.list(look)
			cs = append(cs, c)
			if len(trees[c]) == 0 { // the child is on it while it runs
				empty = append(empty, c)
			}
		}
	}
	from, byBirth := h.born[0], h.bornOK && markOK
	h.mu.Unlock()
	// One search for the strays of every child, made outside h.mu: by
	// birth since the last one, a few reads; where it cannot be (no
	// values of the last PID), for the runs that look over only, among
	// the children of the program's line of ancestors, which may be
	// thousands (where every process is read, Start and Stop do not wait
	// on it).
	searched := cs
	if !markOK {
		searched = empty
	}
	var strays []ptree.Valued
	var executing []int
	spanned := false
	if len(searched) > 0 {
		var full bool
		strays, executing, spanned, full = h.strays(searched, from, mark, byBirth, nil)
		if full {
			trace.Printf("host: no children lists to follow: every process read for %d runs", len(searched))
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case !markOK:
		h.bornOK = false
	case spanned:
		h.born = [2]int{h.born[1], mark}
	default: // searched among the ancestors' children: every stray alive is found
		h.born, h.bornOK = [2]int{mark, mark}, true
	}
	return h.keepFound(cs, trees, strays, executing, empty)
}

// keepFound, with h.mu held, gives each child cs its tree and its
// strays found by list's look, writes the whole down for the watchdog,
// and returns the children found over: those whose tree is empty and
// was already empty at the look (empty), unless a process of the user's
// was mid-execve then (executing), which might have been one of theirs.
func (h *Host) keepFound(cs []*Child, trees map[*Child][]procid.ID, strays []ptree.Valued, executing []int, empty []*Child) (over []*Child) {
	var all []procid.ID
	for _, c := range cs {
		if h.children[c.cfg.RunID] != c {
			continue // over meanwhile
		}
		kept := trees[c]
		for _, v := range strays {
			if v.Value == c.cfg.RunID {
				kept = append(kept, v.ID)
			}
		}
		kept = ptree.Unique(kept)
		if c.stopping {
			// Its Stop took the list and the search's start at once:
			// before this, or after, with what this search found.
			c.kept = kept
		} else {
			c.keep(kept)
		}
	}
	for _, c := range h.children {
		all = append(all, c.kept...)
	}
	sortMembers(all)
	h.guard.wd.Record(all)
	if len(ptree.OwnedPIDs(proc.Host(), executing, os.Getuid())) > 0 {
		return nil
	}
	for _, c := range empty {
		if h.children[c.cfg.RunID] == c && !c.stopping && len(c.kept) == 0 && len(c.group.Members()) == 0 {
			c.stopping = true
			over = append(over, c)
		}
	}
	return over
}

// sortMembers orders ms by PID: the watchdog's list is written only when
// it changed, and the map of children has no order of its own.
func sortMembers(ms []procid.ID) {
	slices.SortFunc(ms, func(a, b procid.ID) int { return a.PID - b.PID })
}

// checkWatchdog replaces a watchdog that died (kill -9, the OOM killer),
// telling the new one every run. It is the program's own child: waited
// for by its PID alone. Under h.mu.
func (h *Host) checkWatchdog() {
	wd := h.guard.wd
	if !wd.Alive() {
		return
	}
	var ws unix.WaitStatus
	if pid, err := unix.Wait4(wd.PID(), &ws, unix.WNOHANG, nil); err != nil || pid == 0 {
		return
	}
	var runs []watchdog.HostRun
	var all []procid.ID
	for id, c := range h.children {
		run := watchdog.HostRun{RunID: id, Grace: c.cfg.Grace, Cgroup: c.group.Path()}
		if c.held() {
			run.Group = c.pid
		}
		runs = append(runs, run)
		all = append(all, c.kept...)
	}
	sortMembers(all)
	start := func() (*watchdog.Watchdog, error) { return watchdog.StartHost(selfPath(), runs, all) }
	if h.guard.replace(syscall.WaitStatus(ws), start) {
		for _, c := range h.children {
			c.rec.Watchdog(h.guard.id())
		}
	}
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
// by side (see [Child.Stop]): one escalation for all the children of one
// Grace, each look at the trees shared by all, so that Close of a hundred
// children takes about as long as a Stop of one. Then the watchdog goes, and refuses new
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
	var all, mine []*Child
	for _, c := range h.children {
		all = append(all, c)
		if !c.stopping {
			c.stopping = true
			mine = append(mine, c)
		}
	}
	h.mu.Unlock()
	slices.SortFunc(all, func(a, b *Child) int { return a.pid - b.pid })
	if len(mine) > 0 {
		errs := h.end(ctx, mine)
		for _, c := range mine {
			c.settle(errs[c])
		}
	}
	// Those another goroutine's Stop claimed end there.
	errs := make([]error, len(all))
	for i, c := range all {
		<-c.stopped
		errs[i] = c.stopErr
	}
	close(h.quit)
	h.keeper.Wait()
	h.mu.Lock()
	h.guard.wd.Stop()
	h.guard.wd = nil
	h.mu.Unlock()
	return errors.Join(errs...)
}
