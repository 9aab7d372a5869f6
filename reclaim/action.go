package reclaim

import (
	"syscall"
	"time"
)

// Action says how selected processes are terminated.
type Action struct {
	// Signal is sent first; default SIGTERM.
	Signal syscall.Signal
	// Grace is how long a process gets to exit before SIGKILL.
	Grace time.Duration
	// DryRun signals nothing.
	DryRun bool
	// ViaSupervisor sends a supervised process's first signal to its
	// supervisor instead (the tether run that started it, verified by its
	// start time), which ends the whole run as for TERM; SIGKILL after
	// the grace goes to the process itself. tether run --replace, and
	// tether reclaim --all.
	ViaSupervisor bool
	// Settle, after a reclaim that freed a port, is how long the port
	// is watched for a process that takes it again (a restart loop, a
	// process manager, a restart policy): such a port is held after all,
	// and its new holder named with what started it. 0 does not watch.
	Settle time.Duration
	// Progress, when set, is told now and then while selected processes
	// are given their grace: how many are still alive, and how long
	// until SIGKILL.
	Progress func(alive int, untilKill time.Duration)
}
