//go:build linux || darwin

package spawn

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/trace"
	"github.com/tetherproc/tether/probe"
)

// errParentGone says the parent died before it could be followed.
var errParentGone = errors.New("parent died before it could be followed")

// execStatus is the shell's status for a command that could not be
// started: 127 not found, 126 found but not executable, 125 for the
// rest, which is tether's own failure (no process could be created).
func execStatus(err error) int {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return 127
	case errors.Is(err, syscall.EACCES), errors.Is(err, syscall.ENOEXEC), errors.Is(err, syscall.EISDIR),
		errors.Is(err, syscall.ETXTBSY), errors.Is(err, syscall.EPERM):
		return 126
	}
	return 125
}

// lookPath resolves the command and classifies failure as a shell does.
func lookPath(arg0 string) (string, error) {
	path, err := exec.LookPath(arg0)
	switch {
	case err == nil:
		return path, nil
	case errors.Is(err, exec.ErrNotFound), errors.Is(err, fs.ErrNotExist):
		return "", &StartError{Status: 127, Err: fmt.Errorf("%s: command not found", arg0)}
	case errors.Is(err, fs.ErrPermission):
		return "", &StartError{Status: 126, Err: fmt.Errorf("%s: not executable", arg0)}
	}
	return "", &StartError{Status: 126, Err: err}
}

// run is the state of one Supervise call: the tethered command, the
// signals coming in, and what must be undone at the end.
type run struct {
	cfg   Config
	child int
	sigs  chan os.Signal
	// status is the command's wait status, once reaped.
	status syscall.WaitStatus
	done   bool
	// term is how the run stands to the terminal.
	term terminal
	// pending are signals taken off sigs while suspending, to be
	// handled next.
	pending []os.Signal
	// watchdog starts beside the set-up; wd is set once it has.
	watchdog func() error
	wd       *watchdog
	// termAt is when the first TERM came: the grace is one budget,
	// counted from then.
	termAt time.Time
	// finished stops the watchdog and the signals, once.
	finished sync.Once
	// rareMu orders the late registration of the rarely sent signals
	// before the end of all registration (stopped).
	rareMu    sync.Mutex
	stopped   bool
	rareTimer *time.Timer
	// argv is what the child is started with: the command's, or with a
	// PID namespace, the init's.
	argv []string
	// box is the run's container, with Config.Contain.
	box *container
	// closeAfterStart are the child's ends of pipes, closed here once
	// it has them.
	closeAfterStart []*os.File
	// recorded is the tree as last written down for the watchdog.
	recorded []proc.Member
}

// Supervise runs cfg.Args as tether run does and returns its exit status:
// the command's own, or 128+N when it died of signal N. In order, as tini
// does: arm the watchdog, become a child subreaper, follow the caller,
// take the terminal, start the command, then forward signals and reap
// until it exits, clean up what is left of its tree, and hand the
// terminal back. The error is a *[StartError] when the command could not
// be started.
func Supervise(cfg Config) (int, error) {
	if len(cfg.Args) == 0 {
		return 0, &StartError{Status: 125, Err: errors.New("no command")}
	}
	if cfg.RunID == "" {
		cfg.RunID = probe.NewRunID()
	}
	r := &run{cfg: cfg, sigs: make(chan os.Signal, 64), term: terminal{fd: -1}}
	// A parent-death signal belongs to the thread that set it up: the
	// command's fires when the thread that forked it exits, and tether's
	// own is armed from the same thread. Locked, this goroutine's thread
	// runs nothing else and cannot exit before Supervise returns, and
	// by then the command is reaped.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	in, err := readInherited()
	if err != nil {
		return 0, &StartError{Status: 125, Err: err}
	}
	r.armWatchdog()
	// Beside the rest of the set-up; done before the command starts.
	warmed := make(chan struct{})
	go func() { warmThreads(4); close(warmed) }()
	// Before the child exists, so that no SIGCHLD or forwarded signal is
	// lost in between, and beside the rest of the set-up: each signal
	// registered waits on a round trip to the runtime's signal thread.
	common, rare := in.toForward()
	notified := make(chan struct{})
	go func() { signal.Notify(r.sigs, append(common, syscall.SIGCHLD)...); close(notified) }()
	defer r.finish()
	path, attr, err := r.prepare()
	if err != nil {
		return 0, err
	}
	if err := becomeSubreaper(); err != nil {
		return 0, &StartError{Status: 125, Err: fmt.Errorf("become child subreaper: %w", err)}
	}
	if !cfg.OutliveParent {
		restore, err := followParent(r.sigs)
		if restore != nil {
			defer restore()
		}
		if err == errParentGone {
			// The caller died before tether was tied to it: start
			// nothing, and end as its death would have ended tether.
			trace.Printf("not started: %v", err)
			return 128 + int(syscall.SIGTERM), nil
		} else if err != nil {
			return 0, err
		}
	}
	if err := r.watchdog(); err != nil {
		return 0, &StartError{Status: 125, Err: err}
	}
	r.setUpTerminal(attr)
	<-warmed
	<-notified
	if err := r.start(path, attr); err != nil {
		return 0, err
	}
	ignoreReserved()
	// Each signal registered costs a round trip to the runtime's signal
	// thread (some 25 µs, 1.3 ms for them all): the rare ones are
	// registered once the command has run for a moment, and not at all
	// for one that is over by then (a make recipe's true). One at a
	// time, so that the end of the run waits on one at most.
	r.rareTimer = time.AfterFunc(10*time.Millisecond, func() {
		for _, sig := range rare {
			r.rareMu.Lock()
			stopped := r.stopped
			if !stopped {
				signal.Notify(r.sigs, sig)
			}
			r.rareMu.Unlock()
			if stopped {
				return
			}
		}
		trace.Printf("the rarely sent signals are caught too")
	})
	status := r.loop()
	if ws := r.status; ws.Signaled() && cfg.DieBySignal && os.Getpid() != 1 {
		r.finish()
		dieBy(ws.Signal())
	}
	return status, nil
}

// warmThreads has the runtime create n more OS threads now, while it
// can, and keep them idle for later. A command that fills the user's
// process limit (ulimit -u, a container's pids limit) leaves none to
// create, and a Go runtime that cannot create a thread it needs dies with
// a traceback, its cleanup undone. Each goroutine below holds its thread
// while the others start, so that each needs a thread of its own;
// released, the threads go idle and are reused, never destroyed.
func warmThreads(n int) {
	release := make(chan struct{})
	var held sync.WaitGroup
	var done sync.WaitGroup
	for i := 0; i < n; i++ {
		held.Add(1)
		done.Add(1)
		go func() {
			defer done.Done()
			runtime.LockOSThread()
			held.Done()
			<-release
			runtime.UnlockOSThread()
		}()
	}
	held.Wait()
	close(release)
	done.Wait()
}

// armWatchdog starts the watchdog beside the rest of the set-up: it
// needs only the run id, and the command starts only once it exists.
func (r *run) armWatchdog() {
	if r.cfg.WatchdogPath == "" {
		r.watchdog = func() error { return nil }
		return
	}
	type started struct {
		wd  *watchdog
		err error
	}
	c := make(chan started, 1)
	go func() {
		wd, err := startWatchdog(watchdogSpec{path: r.cfg.WatchdogPath, shell: "/bin/sh", runID: r.cfg.RunID, grace: r.cfg.Grace})
		c <- started{wd, err}
	}()
	r.watchdog = sync.OnceValue(func() error {
		s := <-c
		r.wd = s.wd
		if s.err == nil {
			trace.Printf("watchdog %d started for run %s", s.wd.pid, r.cfg.RunID)
		}
		return s.err
	})
}

// finish runs however Supervise returns: the watchdog is stopped last,
// after the tree is cleaned up. Unregistering the signals waits on the
// runtime's signal thread as stopping the watchdog waits on its death,
// so the two wait side by side.
func (r *run) finish() { r.finished.Do(r.stop) }

func (r *run) stop() {
	// Unregistering costs a round trip per signal too, and nothing
	// needs to wait for it: it finishes on its own.
	r.rareMu.Lock()
	r.stopped = true
	r.rareMu.Unlock()
	if r.rareTimer != nil {
		r.rareTimer.Stop()
	}
	go signal.Stop(r.sigs)
	_ = r.watchdog()
	if r.wd != nil {
		r.wd.stop()
	}
	for _, f := range r.closeAfterStart {
		f.Close() // when the command never started
	}
	// Also when the command never started: a group made for it goes.
	r.box.release()
}

// prepare resolves the command and the stamp, and lays out how the
// child is started.
func (r *run) prepare() (string, *syscall.ProcAttr, error) {
	path, err := lookPath(r.cfg.Args[0])
	if err != nil {
		return "", nil, err
	}
	cfg, err := r.cfg.resolve(path)
	if err != nil {
		return "", nil, &StartError{Status: 125, Err: err}
	}
	r.cfg = cfg
	attr := &syscall.ProcAttr{
		Env:   cfg.environ(nil),
		Files: []uintptr{or(cfg.Stdin, os.Stdin).Fd(), or(cfg.Stdout, os.Stdout).Fd(), or(cfg.Stderr, os.Stderr).Fd()},
		Sys:   &syscall.SysProcAttr{},
	}
	armChild(cfg, attr.Sys)
	if path, r.argv, err = r.contain(path, attr); err != nil {
		return "", nil, err
	}
	return path, attr, nil
}

func or(f, def *os.File) *os.File {
	if f != nil {
		return f
	}
	return def
}

// start forks the command from Supervise's locked thread. It is reaped by
// wait4(-1) in the loop, so that one owner sees every status and none is
// stolen; os/exec, which would reap it itself, is not used here.
func (r *run) start(path string, attr *syscall.ProcAttr) error {
	if dir := r.box.groupDir(); r.wd != nil && dir != "" {
		// Before the command is born in it: the watchdog kills the
		// group whole from the first moment on.
		r.wd.tell("c " + dir)
	}
	pid, err := syscall.ForkExec(path, r.argv, attr)
	for _, f := range r.closeAfterStart {
		f.Close()
	}
	if err != nil {
		if cerr := r.startFailed(err); cerr != nil {
			return cerr
		}
		return &StartError{Status: execStatus(err), Err: fmt.Errorf("exec %s: %w", path, err)}
	}
	r.child = pid
	where := "in its own group"
	if r.term.shared {
		where = "in the caller's group"
	}
	trace.Printf("started %s as %d %s (run %s, name %s)", path, pid, where, r.cfg.RunID, r.cfg.Name)
	if r.cfg.LeaveDir {
		_ = os.Chdir("/")
	}
	r.box.afterStart(r)
	if r.wd != nil {
		// The group, at once; the list of the tree at the first tick.
		r.wd.tell("g " + strconv.Itoa(pid))
	}
	return nil
}

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
	if r.wd != nil {
		r.wd.record(r.recorded)
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
				trace.Printf("grace of %v after TERM over: KILL to the tree", r.cfg.Grace)
				r.box.kill()
				for _, m := range r.tree() {
					_ = proc.Host().Signal(m, syscall.SIGKILL)
				}
				continue
			case <-tick.C:
				r.record()
				continue
			case stop := <-r.box.stopReports():
				// The init's report of the command's stop: stop in
				// its place, unless it was continued meanwhile.
				if r.box.stillStopped() {
					r.suspend(stop)
				}
				continue
			}
		}
		switch sig {
		case syscall.SIGCHLD:
		case syscall.SIGCONT:
			r.resume()
		default:
			if sig == syscall.SIGTERM {
				// The tree as it stands before the TERM scatters it:
				// where no subreaper keeps it together, the cleanup
				// finds the orphans from this list.
				r.record()
			}
			r.forward(sig.(syscall.Signal))
			if sig == syscall.SIGTERM && kill == nil {
				r.termAt = time.Now()
				kill = time.After(r.cfg.Grace)
			}
		}
	}
	r.cleanup()
	r.restoreTerminal()
	return exitStatus(r.status)
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
	if g := r.box.commandGroup(r.child); g != 0 {
		// The command left the init's group (setpgid, setsid): the
		// group's signal missed it.
		r.box.signalCommand(sig)
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
			r.status = r.box.statusOf(syscall.WaitStatus(ws))
			r.done = true
			if r.wd != nil {
				// Its group id may be recycled from now on.
				r.wd.tell("g-")
			}
			if r.status.Signaled() {
				trace.Printf("command %d killed by %s: exit status %d", pid, unix.SignalName(r.status.Signal()), exitStatus(r.status))
			} else {
				trace.Printf("command %d ended: exit status %d", pid, exitStatus(r.status))
			}
		case r.wd != nil && pid == r.wd.pid:
			// Dead early: its PID may be recycled, and is never
			// signalled or waited for again.
			r.wd.reaped = true
		default:
			trace.Printf("reaped orphan %d", pid)
		}
	}
}

// tree lists the live processes of the command's tree: tether's subtree
// without its watchdog, and the strays found otherwise. As a child
// subreaper (Linux), tether stays an ancestor of everything its command
// starts, so no scan of every process is needed.
func (r *run) tree() []proc.Member {
	skip := 0
	if r.wd != nil && !r.wd.reaped {
		skip = r.wd.pid
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
		KillAll: r.box.kill,
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
