//go:build linux && !tetherportable

package spawn

import (
	"fmt"
	"os"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/tetherproc/tether/internal/exitcode"
	"github.com/tetherproc/tether/internal/trace"
)

// Exec replaces the calling process with cfg.Args, as setpriv --pdeathsig
// does: the parent-death signal is armed on the calling process toward its
// own parent (unless cfg.OutliveParent), the parent is checked to be
// alive still, the markers are stamped with the parent as supervisor, and
// the command is executed in place, keeping the PID. There is no
// supervisor process, so no watchdog and no cleanup of grandchildren.
// Exec returns only on failure: a *[StartError].
func Exec(cfg Config) error {
	if len(cfg.Args) == 0 {
		return &StartError{Status: 125, Err: fmt.Errorf("no command")}
	}
	path, err := lookPath(cfg.Args[0])
	if err != nil {
		return err
	}
	ppid := os.Getppid()
	if cfg.Supervisor.PID == 0 {
		// A namespace's init has no visible parent; it supervises itself.
		if cfg.Supervisor, err = selfOrParent(ppid > 0); err != nil {
			return &StartError{Status: 125, Err: err}
		}
	}
	if cfg, err = cfg.resolve(path); err != nil {
		return &StartError{Status: 125, Err: err}
	}
	env := cfg.environ(nil)

	// The parent-death signal belongs to the thread that sets it, and
	// execve keeps the calling thread's: set and exec on one thread.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if !cfg.OutliveParent && ppid > 0 {
		if err := armParentDeath(ppid, cfg.Signal); err == errParentGone {
			// Deliver the signal as the kernel would have.
			_ = unix.Kill(os.Getpid(), cfg.Signal)
			return &StartError{Status: 128 + int(cfg.Signal), Err: fmt.Errorf("parent %d died before the command started", ppid)}
		} else if err != nil {
			return err
		}
	}
	trace.Printf("exec %s in place, run %s", path, cfg.RunID)
	err = syscall.Exec(path, cfg.Args, env)
	return &StartError{Status: exitcode.Exec(err), Err: fmt.Errorf("exec %s: %w", path, err)}
}

// armParentDeath arms sig for when ppid dies, on the calling thread, then
// checks that ppid did not die before it was armed: errParentGone.
func armParentDeath(ppid int, sig syscall.Signal) error {
	if err := unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(sig), 0, 0, 0); err != nil {
		return &StartError{Status: 125, Err: fmt.Errorf("arm parent-death signal: %w", err)}
	}
	if os.Getppid() != ppid {
		trace.Printf("parent %d died before the parent-death signal was armed", ppid)
		return errParentGone
	}
	trace.Printf("following parent %d: %s when it dies", ppid, unix.SignalName(sig))
	return nil
}
