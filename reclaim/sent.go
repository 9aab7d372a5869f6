package reclaim

import (
	"syscall"

	"github.com/tetherproc/tether/internal/signame"
)

// Sent is one step a reclaim took to end a process: a signal sent to
// it, or to its supervisor (which passes it on to its whole run), or,
// for a container's process, the container stopped through its engine.
// Its String is "TERM", "KILL (to its supervisor)" or "stopped through
// docker".
type Sent struct {
	Signal       syscall.Signal // 0 when Engine stopped it
	ToSupervisor bool           // the signal went to the process's supervisor
	Engine       string         // the container engine that stopped it (see [Manager])
}

// String is the step as tether reclaim reports it.
func (s Sent) String() string {
	switch {
	case s.Engine != "":
		return "stopped through " + s.Engine
	case s.ToSupervisor:
		return signame.Name(s.Signal) + " (to its supervisor)"
	}
	return signame.Name(s.Signal)
}
