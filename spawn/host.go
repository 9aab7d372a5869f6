package spawn

import (
	"errors"
	"os/exec"
	"sync"
	"time"

	"github.com/tetherproc/tether/internal/cgroup"
	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/registry"
	"github.com/tetherproc/tether/internal/watchdog"
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
}

// HostOptions is how a [Host] is made; the zero value is a Host with no
// watchdog.
type HostOptions struct {
	// Reexec says that this program's main calls [Init] first, so that
	// the Host may start the program again as its watchdog: one process,
	// started with the first child, that ends every child's tree should
	// the program be killed with SIGKILL. Without it, only the children
	// themselves are tied to the program (the parent-death signal), not
	// what they start.
	Reexec bool
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

// ErrHostClosed is returned by [Host.Start] once [Host.Close] was called.
var ErrHostClosed = errors.New("spawn: host closed")

// StopError is a tree that [Child.Stop] or [Host.Close] could not end:
// processes still alive after SIGKILL (stuck in the kernel), or left
// when the context ended.
type StopError struct {
	Name, RunID string
	Left        int // processes of the tree still alive
	Err         error
}

func (e *StopError) Error() string {
	return "stop " + e.Name + " (run " + e.RunID + "): " + e.Err.Error()
}

// Unwrap gives the cause: the context's error, when it ended first.
func (e *StopError) Unwrap() error { return e.Err }

// Config is the child's configuration, with its defaults filled in: its
// run id and name among them.
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
