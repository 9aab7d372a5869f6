//go:build linux || darwin

package spawn

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"sync"
	"syscall"

	"github.com/tetherproc/tether/internal/callerchain"
	"github.com/tetherproc/tether/internal/sigstate"
	"github.com/tetherproc/tether/internal/trace"
	"github.com/tetherproc/tether/internal/watchdog"
	"github.com/tetherproc/tether/marker"
)

// This file holds the set-up of a run before its command starts: what
// is read from the caller, and what runs beside the rest on goroutines of
// its own (the watchdog, the threads kept for a full process limit, the
// signals, the caller's chain).

// newRun reads what the caller left tether (on the locked thread: the
// blocked signals are the thread's) and begins the set-up that runs
// beside the rest (setUpAside). It returns the rarely sent signals, to
// be caught once the command runs.
func newRun(cfg Options) (*supervisor, []os.Signal, error) {
	if cfg.RunID == "" {
		cfg.RunID = marker.NewRunID()
	}
	in, err := sigstate.ReadInherited()
	if err != nil {
		return nil, nil, &StartError{Err: err}
	}
	r := &supervisor{run: run{cfg: cfg, forwards: cfg.SoleReaper, guard: &guard{}}, reaper: reaper{sole: cfg.SoleReaper}, sigs: make(chan os.Signal, 64), term: terminal{fd: -1}}
	first, soon, rare := in.ToForward()
	if !cfg.SoleReaper {
		soon, rare = in.LeaveUncaught(soon), in.LeaveUncaught(rare)
	}
	r.ready = r.setUpAside(first, append([]os.Signal{syscall.SIGCHLD}, soon...))
	return r, rare, nil
}

// setUpAside starts, each on a goroutine of its own, what the command's
// start must wait for but nothing else does: the watchdog (it needs only
// the run id), the threads a fork storm could leave tether without
// (warmThreads), and the signals caught before the command exists
// (first), so that no TERM, INT or HUP is lost in between; then, not
// waited for, those caught as it starts (soon, SIGCHLD first). The
// function it returns waits for them, once, and gives the watchdog's
// error; on an error it does not wait for the threads, which a machine
// out of processes (one reason a watchdog fails to start) may never
// give.
func (r *supervisor) setUpAside(first, soon []os.Signal) func() error {
	wdc := r.startWatchdogAside()
	warmed := make(chan struct{})
	go func() { warmThreads(4); close(warmed) }()
	notified := make(chan struct{})
	r.late.soonDone = make(chan struct{})
	go func() {
		if len(first) > 0 {
			signal.Notify(r.sigs, first...)
		}
		close(notified)
		r.late.registerSoon(r.sigs, soon)
	}()
	chainc := r.followChainAside()
	return sync.OnceValue(func() error {
		s := <-wdc
		<-notified
		c := <-chainc
		r.stopChain = c.stop
		if s.err == nil && s.wd != nil {
			r.guard.wd, r.guard.started = s.wd, 1
		}
		switch {
		case c.err != nil:
			s.wd.Stop()
			r.guard.wd = nil
			return c.err
		case s.err != nil:
			return s.err
		}
		<-warmed
		if s.wd != nil {
			trace.Printf("watchdog %d started for run %s", s.wd.PID(), r.cfg.RunID)
		}
		return s.err
	})
}

// startedWatchdog is the watchdog started aside, or why it was not.
type startedWatchdog struct {
	wd  *watchdog.Watchdog
	err error
}

// startWatchdogAside starts the run's watchdog on a goroutine of its
// own, where the program can start one (reexecAllowed).
func (r *supervisor) startWatchdogAside() <-chan startedWatchdog {
	wdc := make(chan startedWatchdog, 1)
	if !reexecAllowed() {
		wdc <- startedWatchdog{}
		return wdc
	}
	spec := r.watchdogSpec() // r.cfg is prepare's to change meanwhile
	go func() {
		wd, err := watchdog.Start(spec)
		wdc <- startedWatchdog{wd, err}
	}()
	return wdc
}

// followedChain is the watch on the caller's chain, or why there is none.
type followedChain struct {
	stop func()
	err  error
}

// followChainAside follows the caller's chain beyond the parent, whose
// own tie is armed on the locked thread (followCaller), on a goroutine of
// its own: any death from then on comes to sigs as a TERM, and one that
// came first is errParentGone.
func (r *supervisor) followChainAside() <-chan followedChain {
	chainc := make(chan followedChain, 1)
	if r.cfg.OutliveParent {
		chainc <- followedChain{func() {}, nil}
		return chainc
	}
	go func() {
		stop, err := followChain(os.Getppid(), r.sigs)
		chainc <- followedChain{stop, err}
	}()
	return chainc
}

// followChain follows the caller's chain beyond the parent ppid: the
// death of any of it comes to sigs as SIGTERM. stop, never nil, ends
// the watch.
func followChain(ppid int, sigs chan<- os.Signal) (stop func(), err error) {
	stop, err = callerchain.Follow(ppid, func() {
		trace.Printf("an ancestor of the caller died: TERM")
		sigs <- syscall.SIGTERM
	})
	if err == callerchain.ErrGone {
		trace.Printf("an ancestor of the caller died before it could be followed")
		return func() {}, errParentGone
	} else if err != nil {
		return func() {}, &StartError{Err: err}
	}
	return stop, nil
}

// watchdogSpec is how the run's watchdog is started.
func (r *supervisor) watchdogSpec() watchdog.Spec {
	return watchdog.Spec{Path: selfPath(), Shell: "/bin/sh", RunID: r.cfg.RunID, Grace: r.cfg.Grace}
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
	var held, done sync.WaitGroup
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

// followCaller ties tether to its caller, unless Options.OutliveParent:
// the caller's death is handled like SIGTERM. restore, never nil, undoes
// the tie when Supervise returns.
func (r *supervisor) followCaller() (restore func(), err error) {
	if r.cfg.OutliveParent {
		return func() {}, nil
	}
	restore, err = followParent(r.sigs)
	if restore == nil {
		restore = func() {}
	}
	return restore, err
}

// containFailed is the error of a containment that could not be had.
func containFailed(mode Containment, tried []string) error {
	return &StartError{Err: &ContainError{Mode: mode, Tried: tried}}
}

// execFailed is the StartError of a command the kernel would not
// execute ("exec /srv/app: permission denied"), its errno the cause.
func execFailed(path string, err error) *StartError {
	return &StartError{Exec: true, Err: &fs.PathError{Op: "exec", Path: path, Err: err}}
}

// lookupError is cmd.Err, the failure of exec.Command's look-up in
// PATH, worded as a shell words it, its cause kept for errors.Is.
func lookupError(cmd *exec.Cmd) error {
	name := cmd.Path
	var ee *exec.Error
	if errors.As(cmd.Err, &ee) {
		name = ee.Name
	}
	switch err := cmd.Err; {
	case errors.Is(err, exec.ErrNotFound), errors.Is(err, fs.ErrNotExist):
		return &StartError{Exec: true, Err: &causeError{name + ": command not found", cmd.Err}}
	case errors.Is(err, fs.ErrPermission):
		return &StartError{Exec: true, Err: &causeError{name + ": not executable", cmd.Err}}
	default:
		return &StartError{Exec: true, Err: err}
	}
}

// causeError words an error anew and keeps its cause for errors.Is.
type causeError struct {
	msg   string
	cause error
}

func (e *causeError) Error() string { return e.msg }

func (e *causeError) Unwrap() error { return e.cause }
