package reclaim

import "syscall"

// Sent is one step a reclaim took to end a process: a signal sent to
// it, or to its supervisor (which passes it on to its whole run), or,
// for a container's process, the container stopped through its engine.
type Sent struct {
	Signal       syscall.Signal // 0 when Engine stopped it
	ToSupervisor bool           // the signal went to the process's supervisor
	Engine       string         // the container engine that stopped it (see [Manager])
}
