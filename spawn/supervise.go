//go:build linux || darwin

package spawn

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"syscall"
	"time"

	"github.com/tetherproc/tether/internal/cgroup"
	"github.com/tetherproc/tether/internal/pidns"
	"github.com/tetherproc/tether/internal/sigstate"
	"github.com/tetherproc/tether/internal/trace"
	"github.com/tetherproc/tether/internal/watchdog"
)

// selfPath is this program, to start again as a helper: on Linux
// /proc/self/exe, which stays this binary even if its file is replaced
// or removed meanwhile; elsewhere its path ("" when unknown: no helper
// can be started).
func selfPath() string {
	if runtime.GOOS == "linux" {
		return "/proc/self/exe"
	}
	p, err := os.Executable()
	if err != nil {
		return ""
	}
	return p
}

// initCalled says main called Init: the program may be started again as
// a helper (the watchdog, a contained run's init).
var initCalled bool

func markInit() { initCalled = true }

// reexecAllowed says this program can be started again as tether's
// helpers (a run's or a Host's watchdog, a PID namespace's init, the
// step into a cgroup): main called Init, and the binary can be found.
func reexecAllowed() bool {
	return initCalled && selfPath() != ""
}

// errParentGone says the parent died before it could be followed.
var errParentGone = errors.New("parent died before it could be followed")

// supervisor is the state of one Supervise call: its run, the tethered
// command, the signals coming in, and what must be undone at the end.
type supervisor struct {
	// run is the run's bookkeeping, as a Host's child's: its cgroup,
	// the tree as last written down for the watchdog and in its record,
	// and its watchdog (nil without one).
	run
	// reaper is the run's wait4: the command, its status, the orphans.
	reaper
	sigs chan os.Signal
	// term is how the run stands to the terminal.
	term terminal
	// pending are signals taken off sigs while suspending, to be
	// handled next.
	pending []os.Signal
	// init is the run's PID namespace, with Options.Contain: nil
	// without one.
	init *pidns.Init
	// tried are the containment modes that failed before the one in
	// use (auto), for the error should the init not start.
	tried []string
	// argv is what the child is started with: the command's, or with a
	// PID namespace, the init's.
	argv []string
	// stdio is the command's descriptors, and the copies through
	// pipes os/exec would make; nil before prepare.
	stdio *stdio
	// tick is what the listing of the tree keeps from one tick to the
	// next, where it is not the kernel's to keep (the portable path).
	//lint:ignore U1000 the portable path's (platform_portable.go): the full path keeps nothing between ticks
	tick tickState
	// daemonNamed: the daemon left by the command was named.
	daemonNamed bool
	// termAt is when the first TERM came: the grace is one budget,
	// counted from then.
	termAt time.Time
	// late catches the rarely sent signals once the command runs.
	late lateSignals
	// unreserve puts back the reserved signal's action (a library
	// caller's); nil as the sole reaper.
	unreserve func()
	// ready waits for the set-up done beside the rest; finished stops
	// the watchdog and the signals, once.
	ready    func() error
	finished sync.Once
	// stopChain ends the watch on the caller's chain; set by ready.
	stopChain func()
	// stopHangup ends the watch of Options.EndOnHangup; nil without one.
	stopHangup func()
}

// wd is the run's watchdog; nil without one.
func (r *supervisor) wd() *watchdog.Watchdog { return r.guard.watchdog() }

// Supervise runs cmd as tether run does and returns how it ended: its
// exit code, or the signal it died of. In order, as tini does: start
// the watchdog, become a child subreaper, follow the caller, take the
// terminal, start the command, then forward signals and reap until it
// exits, clean up what is left of its tree, and hand the terminal back.
// The error is a *[StartError] when the command could not be started.
//
// cmd is described as os/exec describes it (Path, Args, Env, Dir,
// Stdin, Stdout, Stderr, ExtraFiles, WaitDelay, SysProcAttr but for
// what the run sets: its process group, session, terminal and cgroup),
// and the same rules hold: a nil Stdin, Stdout or Stderr is the null
// device (pass os.Stdout for the program's own), another reader or
// writer than an *os.File is copied through a pipe, and Supervise
// returns once those copies are done (or WaitDelay has passed). cmd is
// not started through cmd.Start, since the run reaps its command itself:
// cmd.Process and cmd.ProcessState stay nil, and cmd.Cancel is not
// called (ctx's end is a TERM, below).
//
// Use it in a program whose job is this one command: a wrapper, a
// container's entrypoint, tether run itself (which sets
// [Options.SoleReaper]). A program that starts children beside its own
// work uses a [Host] instead. Supervise is safe there too: without
// SoleReaper it reaps by PID only, ends only its command's tree, and
// puts back the child-subreaper flag, its thread's parent-death signal
// and every signal disposition it changed; it does not catch TSTP, TTIN,
// TTOU or CONT unless the program catches them already, since Go's
// runtime would keep handling one for good once caught, and a command
// stopped by one does not stop the program. While it runs, the signals
// it forwards are the command's: a TERM, INT or HUP sent to the program
// goes to the command (with OutliveParent unset, so does the death of
// the program's parent), which is right for a program that is the
// command's wrapper and wrong for one with work of its own.
//
// The end of ctx is a TERM to the command, as one sent to the program
// would be: its group gets it, then opts.Grace, then KILL to what is left
// of its tree. Supervise then returns how the command ended with an error
// that wraps ctx.Err(). A ctx done before the call starts nothing.
func Supervise(ctx context.Context, cmd *exec.Cmd, opts Options) (Exit, error) {
	if err := checkCommand("Supervise", cmd); err != nil {
		return Exit{}, err
	}
	if err := opts.Validate(); err != nil {
		return Exit{}, &StartError{Err: err}
	}
	if err := ctx.Err(); err != nil {
		return Exit{}, &StartError{Err: err}
	}
	// A parent-death signal belongs to the thread that set it up: the
	// command's fires when the thread that forked it exits, and tether's
	// own is armed from the same thread. Locked, this goroutine's thread
	// runs nothing else and cannot exit before Supervise returns, and
	// by then the command is reaped.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	r, rare, err := newRun(opts)
	if err != nil {
		return Exit{}, err
	}
	defer r.finish()
	path, attr, err := r.prepare(cmd)
	if err != nil {
		return Exit{}, err
	}
	unreap, err := becomeSubreaper()
	defer unreap()
	if err != nil {
		return Exit{}, &StartError{Err: fmt.Errorf("become child subreaper: %w", err)}
	}
	restore, err := r.followCaller()
	defer restore()
	if err == errParentGone {
		// The caller died before tether was tied to it: start nothing,
		// and end as its death would have ended tether.
		trace.Printf("not started: %v", err)
		return killedBy(syscall.SIGTERM), nil
	} else if err != nil {
		return Exit{}, err
	}
	if err := r.start(path, attr); err == errParentGone {
		trace.Printf("not started: %v", err)
		return killedBy(syscall.SIGTERM), nil
	} else if err != nil {
		return Exit{}, err
	}
	cancelled, stop := r.watchEnds(ctx, cmd)
	defer stop()
	r.late.catch(r.sigs, rare)
	r.loop()
	return r.ended(ctx, cmd.Path, path, cancelled)
}

// ended is what Supervise returns once the loop is over: how the command
// ended, and why that is an error where it is one (its exec failed in
// its namespace, ctx ended the run, a copy of its standard input or
// output failed). path is the command as started (cmdPath as given).
func (r *supervisor) ended(ctx context.Context, cmdPath, path string, cancelled func() bool) (Exit, error) {
	status := exitOf(r.status)
	copyErr := r.stdio.wait()
	if err := r.init.ExecError(); err != nil {
		// A contained command's exec is its namespace's init's: it
		// failed there, as it fails here before a start.
		return Exit{}, execFailed(cmdPath, err)
	}
	if cancelled() {
		return status, fmt.Errorf("spawn: %s ended early: %w", path, ctx.Err())
	}
	if copyErr != nil {
		return status, fmt.Errorf("spawn: %s: copy of its standard input or output: %w", path, copyErr)
	}
	r.dieLikeCommand()
	return status, nil
}

// checkExec refuses what Exec cannot do in place, naming it.
func checkExec(cmd *exec.Cmd) error {
	if err := checkCommand("Exec", cmd); err != nil {
		return err
	}
	if cmd.Stdin != nil || cmd.Stdout != nil || cmd.Stderr != nil || len(cmd.ExtraFiles) > 0 || cmd.SysProcAttr != nil {
		return &StartError{Err: fmt.Errorf("spawn: Exec: %s: Stdin, Stdout, Stderr, ExtraFiles and SysProcAttr must be nil: the command keeps this process's own descriptors and attributes", cmd.Path)}
	}
	return nil
}

// setsRunAttrs reports whether a sets what a run sets itself: the
// child's session, process group, terminal or cgroup.
func setsRunAttrs(a *syscall.SysProcAttr) bool {
	return a != nil && (a.Setsid || a.Setctty || a.Foreground || a.Pgid != 0 || cgroup.Chosen(a))
}

// checkCommand refuses a cmd that cannot be started as asked, naming
// what is wrong: entry is the function asked.
func checkCommand(entry string, cmd *exec.Cmd) error {
	switch {
	case cmd == nil || cmd.Path == "" && len(cmd.Args) == 0:
		return &StartError{Err: errors.New("spawn: " + entry + ": no command")}
	case cmd.Process != nil:
		return &StartError{Err: errors.New("spawn: " + entry + ": " + cmd.Path + " already started")}
	case cmd.Err != nil:
		return lookupError(cmd)
	}
	if setsRunAttrs(cmd.SysProcAttr) {
		return &StartError{Err: fmt.Errorf("spawn: %s: %s: SysProcAttr's Setsid, Setctty, Foreground, Pgid and UseCgroupFD are the run's to set (its process group, terminal and cgroup)", entry, cmd.Path)}
	}
	return nil
}

// prepare resolves the stamp, opens the command's descriptors and lays
// out how the child is started, in its container when it has one.
func (r *supervisor) prepare(cmd *exec.Cmd) (string, *syscall.ProcAttr, error) {
	path := cmd.Path
	cfg, err := r.cfg.resolve(path)
	if err != nil {
		return "", nil, &StartError{Err: err}
	}
	r.cfg, r.command = cfg, commandLine(cmd)
	if cmd.Dir != "" {
		// As os/exec words it; the fork's own failure (ENOENT) would
		// read as a command not found.
		if fi, err := os.Stat(cmd.Dir); err != nil {
			return "", nil, &StartError{Err: fmt.Errorf("spawn: %s: chdir %s: %w", path, cmd.Dir, err)}
		} else if !fi.IsDir() {
			return "", nil, &StartError{Err: fmt.Errorf("spawn: %s: chdir %s: %w", path, cmd.Dir, syscall.ENOTDIR)}
		}
	}
	env := cmd.Environ()
	if env == nil {
		env = []string{} // an empty Env is the command's, not os.Environ
	}
	if r.stdio, err = openStdio(cmd); err != nil {
		return "", nil, &StartError{Err: fmt.Errorf("spawn: %s: %w", path, err)}
	}
	attr := &syscall.ProcAttr{
		Dir:   cmd.Dir,
		Env:   cfg.environ(env),
		Files: r.stdio.fds(0, 3, false),
		Sys:   &syscall.SysProcAttr{},
	}
	if cmd.SysProcAttr != nil {
		*attr.Sys = *cmd.SysProcAttr
	}
	armChild(cfg, attr.Sys)
	if path, r.argv, err = r.contain(path, r.command, attr); err != nil {
		return "", nil, err
	}
	// After the init's pipe, where a PID namespace has one: its init
	// passes them on to the command at their numbers (extraTargets).
	attr.Files = append(attr.Files, r.stdio.fds(3, len(r.stdio.files), r.init != nil)...)
	return path, attr, nil
}

// commandLine is cmd's argv: Args, or {Path} where it has none, as
// os/exec runs it.
func commandLine(cmd *exec.Cmd) []string {
	if len(cmd.Args) == 0 {
		return []string{cmd.Path}
	}
	return cmd.Args
}

// start waits for the set-up begun aside, settles the terminal, and
// forks the command from Supervise's locked thread. It is reaped by
// wait4(-1) in the loop, so that one owner sees every status and none is
// stolen; os/exec, which would reap it itself, is not used here.
func (r *supervisor) start(path string, attr *syscall.ProcAttr) error {
	if err := r.ready(); err == errParentGone {
		return err
	} else if err != nil {
		return &StartError{Err: err}
	}
	r.term.setUp(attr, r.stdio.files[:3])
	// Before the command is born in it: the watchdog kills the group
	// whole from the first moment on.
	r.wd().Cgroup(r.group.Path())
	pid, err := r.forkExec(path, attr)
	r.init.Started(pid, err == nil)
	r.stdio.started(err == nil)
	if err != nil {
		var contain *StartError
		if errors.As(err, &contain) {
			return err
		}
		if r.init != nil {
			// The init is tether's own binary: a failure to start it
			// is the namespaces' refusal, not the command's.
			return containFailed(r.cfg.Contain, append(r.tried, "pidns: new namespaces refused: "+err.Error()))
		}
		return execFailed(path, err)
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
	// The group, at once; the list of the tree at the first tick.
	r.wd().Group(pid)
	if restore := sigstate.IgnoreReserved(); !r.cfg.SoleReaper {
		r.unreserve = restore
	}
	return nil
}

// exitOf is the Exit of a wait status.
func exitOf(ws syscall.WaitStatus) Exit {
	if ws.Signaled() {
		return Exit{Code: -1, Signal: ws.Signal(), CoreDump: ws.CoreDump()}
	}
	return Exit{Code: ws.ExitStatus()}
}

// killedBy is the Exit of death by sig.
func killedBy(sig syscall.Signal) Exit { return Exit{Code: -1, Signal: sig} }
