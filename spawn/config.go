package spawn

import (
	"os"
	"syscall"
	"time"
)

// Config is what Supervise runs.
type Config struct {
	Options
	// Args is the command line; Args[0] is looked up in PATH.
	Args []string
	// Grace is how long the tree gets between TERM and KILL; zero means
	// KILL right after TERM.
	Grace time.Duration
	// OutliveParent keeps running when the caller (the shell, make) dies.
	// By default the caller's death is handled like SIGTERM.
	OutliveParent bool
	// WatchdogPath, when set, is a binary that runs WatchdogMain when
	// its first argument is WatchdogArg ("/proc/self/exe" for the program
	// itself).
	// The watchdog ends the whole tree should the supervisor be killed
	// with SIGKILL, which no cleanup code of the supervisor survives.
	WatchdogPath string
	// Stdin, Stdout and Stderr default to the calling process's.
	Stdin, Stdout, Stderr *os.File
}

// StartError is a failure to start the command, with the exit status a
// shell would give it: 127 not found, 126 not executable, 125 otherwise.
type StartError struct {
	Status int
	Err    error
}

func (e *StartError) Error() string { return e.Err.Error() }
func (e *StartError) Unwrap() error { return e.Err }

// ExitStatus is the shell's exit status for a wait status: the exit code,
// or 128+N for death by signal N.
func ExitStatus(ws syscall.WaitStatus) int {
	if ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ws.ExitStatus()
}

// WatchdogArg, as the first argument, makes a binary the watchdog of a
// supervisor. A program that calls Supervise with a WatchdogPath must
// hand control to WatchdogMain when started so:
//
//	if len(os.Args) > 1 && os.Args[1] == spawn.WatchdogArg {
//		os.Exit(spawn.WatchdogMain(os.Args[2:]))
//	}
const WatchdogArg = "tether-watchdog"
