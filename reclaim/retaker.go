package reclaim

import "time"

// Retaker is a process that took a port again after a reclaim freed it:
// a new holder, started by what restarts the one that was ended (a shell
// loop, nodemon, a process manager). Ending it would free the port for a
// moment again; what stops it for good is its starter, which tether
// names and does not signal.
type Retaker struct {
	PID     int
	Command []string
	// After is how long after the port was seen free it was taken again.
	After time.Duration
	// Parent is the process that started it, and its command line.
	Parent        int
	ParentCommand []string
	// Manager is who runs it when a container engine, a service manager
	// or a process manager does (then its command stops it for good).
	Manager *Manager
}
