package spawn

import (
	"fmt"
	"os"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/tetherproc/tether/probe"
)

// Exec replaces the calling process with the command in args, as
// setpriv --pdeathsig does: the parent-death signal is armed on the
// calling process toward its own parent (unless outliveParent), the parent
// is checked to be alive still, the markers are stamped with the parent as
// supervisor, and the command is executed in place, keeping the PID. It
// returns only on failure: a *StartError.
func Exec(opts Options, args []string, outliveParent bool) error {
	if len(args) == 0 {
		return &StartError{Status: 125, Err: fmt.Errorf("no command")}
	}
	path, err := lookPath(args[0])
	if err != nil {
		return err
	}
	ppid := os.Getppid()
	if opts.Supervisor.PID == 0 {
		// A namespace's init has no visible parent; it supervises itself.
		sup := os.Getpid()
		if ppid > 0 {
			sup = ppid
		}
		if opts.Supervisor, err = probe.SupervisorOf(sup); err != nil {
			return &StartError{Status: 125, Err: fmt.Errorf("read supervisor %d: %w", sup, err)}
		}
	}
	if opts, err = opts.resolve(path); err != nil {
		return &StartError{Status: 125, Err: err}
	}
	env := opts.environ(nil)

	// The parent-death signal belongs to the thread that sets it, and
	// execve keeps the calling thread's: set and exec on one thread.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if !outliveParent && ppid > 0 {
		if err := unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(opts.Signal), 0, 0, 0); err != nil {
			return &StartError{Status: 125, Err: fmt.Errorf("arm parent-death signal: %w", err)}
		}
		if os.Getppid() != ppid {
			// The parent died before the signal was armed: deliver it
			// as the kernel would have.
			_ = unix.Kill(os.Getpid(), opts.Signal)
			return &StartError{Status: 128 + int(opts.Signal), Err: fmt.Errorf("parent %d died before the command started", ppid)}
		}
	}
	err = syscall.Exec(path, args, env)
	status := 126
	if err == syscall.ENOENT {
		status = 127
	}
	return &StartError{Status: status, Err: fmt.Errorf("exec %s: %w", path, err)}
}
