package spawn

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tetherproc/tether/probe"
)

// Forwarded are the signals Supervise passes on to the command's group.
var Forwarded = []os.Signal{
	syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTERM,
	syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGWINCH,
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

// supervisor is the state of one Supervise call.
type supervisor struct {
	cfg   Config
	child int
	sigs  chan os.Signal
	// status is the command's wait status, once reaped.
	status syscall.WaitStatus
	done   bool
	// tty is the terminal handed to the command, -1 when none.
	tty int
	wd  *watchdog
}

// Supervise runs cfg.Args as tether run does and returns its exit status:
// the command's own, or 128+N when it died of signal N. The error is a
// *StartError when the command could not be started.
func Supervise(cfg Config) (int, error) {
	if len(cfg.Args) == 0 {
		return 0, &StartError{Status: 125, Err: errors.New("no command")}
	}
	// The watchdog needs only the run id; it starts first and boots while
	// the rest is set up, and the command starts only once it exists.
	if cfg.Options.RunID == "" {
		cfg.Options.RunID = probe.NewRunID()
	}
	type started struct {
		wd  *watchdog
		err error
	}
	wdc := make(chan started, 1)
	if cfg.WatchdogPath != "" {
		go func() {
			wd, err := startWatchdog(cfg.WatchdogPath, cfg.Options.RunID, cfg.Grace)
			wdc <- started{wd, err}
		}()
	} else {
		wdc <- started{}
	}
	var wd *watchdog
	waitWatchdog := sync.OnceValue(func() error {
		w := <-wdc
		wd = w.wd
		return w.err
	})
	var sigs chan os.Signal
	// Whatever way Supervise returns, the watchdog is stopped last, after
	// the tree is cleaned up. Unregistering the signals waits on the
	// runtime's signal thread as stopping the watchdog waits on its death,
	// so the two wait side by side.
	defer func() {
		var unnotified chan struct{}
		if sigs != nil {
			unnotified = make(chan struct{})
			go func() { signal.Stop(sigs); close(unnotified) }()
		}
		_ = waitWatchdog()
		if wd != nil {
			wd.stop()
		}
		if unnotified != nil {
			<-unnotified
		}
	}()
	path, err := lookPath(cfg.Args[0])
	if err != nil {
		return 0, err
	}
	opts, err := cfg.Options.resolve(path)
	if err != nil {
		return 0, &StartError{Status: 125, Err: err}
	}
	stdin := or(cfg.Stdin, os.Stdin)
	attr := &syscall.ProcAttr{
		Env:   opts.environ(nil),
		Files: []uintptr{stdin.Fd(), or(cfg.Stdout, os.Stdout).Fd(), or(cfg.Stderr, os.Stderr).Fd()},
		Sys:   &syscall.SysProcAttr{},
	}
	opts.arm(attr.Sys)

	s := &supervisor{cfg: cfg, sigs: make(chan os.Signal, 32), tty: -1}
	// Before the child exists, so that no SIGCHLD or forwarded signal is
	// lost in between.
	signal.Notify(s.sigs, append(Forwarded, syscall.SIGCHLD)...)
	sigs = s.sigs
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return 0, &StartError{Status: 125, Err: fmt.Errorf("become child subreaper: %w", err)}
	}
	if !cfg.OutliveParent {
		if err := followParent(); err != nil {
			// The caller died before tether was tied to it: start nothing.
			return 128 + int(syscall.SIGTERM), nil
		}
	}
	if err := waitWatchdog(); err != nil {
		return 0, &StartError{Status: 125, Err: err}
	}
	s.wd = wd
	if fd, ok := foregroundTTY(stdin); ok {
		attr.Sys.Foreground = true
		attr.Sys.Ctty = fd
		s.tty = fd
	}
	// The child is reaped by wait4(-1) below, so that one owner sees every
	// status and none is stolen; os/exec, which would reap it itself, is
	// not needed here.
	var pid int
	err = runOnSpawner(func() (err error) {
		pid, err = syscall.ForkExec(path, cfg.Args, attr)
		return err
	})
	if err != nil {
		status := 126
		if errors.Is(err, fs.ErrNotExist) {
			status = 127
		}
		return 0, &StartError{Status: status, Err: fmt.Errorf("exec %s: %w", path, err)}
	}
	s.child = pid
	return s.loop(), nil
}

func or(f, def *os.File) *os.File {
	if f != nil {
		return f
	}
	return def
}

// followParent arms SIGTERM for when the caller dies, from the spawner
// thread, which lives as long as tether; then it checks that the caller
// did not die before the signal was armed. In a PID namespace's init the
// parent is outside (getppid is 0) and there is nothing to follow.
func followParent() error {
	ppid := os.Getppid()
	if ppid == 0 {
		return nil
	}
	err := runOnSpawner(func() error {
		return unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(syscall.SIGTERM), 0, 0, 0)
	})
	if err != nil {
		return err
	}
	if os.Getppid() != ppid {
		return errors.New("parent died")
	}
	return nil
}

// foregroundTTY reports whether in is a terminal of which tether's group
// has the foreground: then the command's group gets it, so that it can read
// input and gets Ctrl-C itself.
func foregroundTTY(in *os.File) (int, bool) {
	if in == nil {
		return -1, false
	}
	fd := int(in.Fd())
	pgrp, err := unix.IoctlGetInt(fd, unix.TIOCGPGRP)
	if err != nil || pgrp != unix.Getpgrp() {
		return -1, false
	}
	return fd, true
}

// loop waits for the command to exit, forwarding signals and reaping
// orphans, then cleans up what is left of the tree.
func (s *supervisor) loop() int {
	var kill <-chan time.Time
	// A SIGCHLD can coalesce with another; the tick makes sure nothing
	// waits on it forever.
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for s.reap(); !s.done; s.reap() {
		select {
		case sig := <-s.sigs:
			if sig == syscall.SIGCHLD {
				continue
			}
			s.forward(sig.(syscall.Signal))
			if sig == syscall.SIGTERM && kill == nil {
				kill = time.After(s.cfg.Grace)
			}
		case <-kill:
			s.signalTree(syscall.SIGKILL)
		case <-tick.C:
		}
	}
	s.cleanup()
	s.restoreTTY()
	return ExitStatus(s.status)
}

// forward passes sig to the command's process group. The group id is the
// command's PID, which cannot be recycled while the command is unreaped.
func (s *supervisor) forward(sig syscall.Signal) {
	if err := unix.Kill(-s.child, sig); err != nil {
		_ = unix.Kill(s.child, sig)
	}
}

// reap collects every exited child without blocking: the command's status
// is kept, adopted orphans are discarded.
func (s *supervisor) reap() {
	for {
		var ws unix.WaitStatus
		pid, err := unix.Wait4(-1, &ws, unix.WNOHANG, nil)
		if err == unix.EINTR {
			continue
		}
		if err != nil || pid <= 0 {
			return
		}
		if pid == s.child {
			s.status = syscall.WaitStatus(ws)
			s.done = true
		}
	}
}

// tree lists the live processes of the command's tree: tether's subtree
// without its watchdog.
func (s *supervisor) tree() []member {
	skip := 0
	if s.wd != nil {
		skip = s.wd.pid
	}
	return subtree(os.Getpid(), skip)
}

// signalTree signals every live process of the tree.
func (s *supervisor) signalTree(sig syscall.Signal) int {
	ms := s.tree()
	for _, m := range ms {
		signalMember(m, sig)
	}
	return len(ms)
}

// cleanup ends what the command left behind: TERM to the whole tree, up
// to Grace for it to go, then KILL until nothing is left.
func (s *supervisor) cleanup() {
	if s.signalTree(syscall.SIGTERM) == 0 {
		s.reap()
		return
	}
	deadline := time.Now().Add(s.cfg.Grace)
	for time.Now().Before(deadline) {
		s.reap()
		if len(s.tree()) == 0 {
			return
		}
		s.waitChild(deadline)
	}
	for i := 0; i < 100; i++ {
		s.reap()
		if s.signalTree(syscall.SIGKILL) == 0 {
			break
		}
		s.waitChild(time.Now().Add(50 * time.Millisecond))
	}
	s.reap()
}

// waitChild sleeps until a SIGCHLD arrives or the deadline passes.
func (s *supervisor) waitChild(deadline time.Time) {
	t := time.NewTimer(min(time.Until(deadline), 100*time.Millisecond))
	defer t.Stop()
	for {
		select {
		case sig := <-s.sigs:
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

// restoreTTY takes the terminal back for tether's own group, so that the
// shell finds it as it left it.
func (s *supervisor) restoreTTY() {
	if s.tty < 0 {
		return
	}
	signal.Ignore(syscall.SIGTTOU)
	_ = unix.IoctlSetPointerInt(s.tty, unix.TIOCSPGRP, unix.Getpgrp())
}
