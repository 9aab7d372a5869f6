package reclaim

import "github.com/tetherproc/tether/internal/kill"

// Protection is why a [Process] is never signalled, whatever a [Filter]
// asks: its kind, for a caller to word; "" for a process that may be.
type Protection = kill.Protection

// The protections.
const (
	// ProtectedPID1: PID 1, the init of the PID namespace.
	ProtectedPID1 Protection = kill.PID1
	// ProtectedSelf: the caller itself.
	ProtectedSelf Protection = kill.Self
	// ProtectedAncestor: an ancestor of the caller, such as the shell
	// that runs it.
	ProtectedAncestor Protection = kill.Ancestor
)
