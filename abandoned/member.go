package abandoned

import "github.com/tetherproc/tether/procid"

// Member is one process of a [Tree].
type Member struct {
	ID       procid.ID // its PID and start time
	PPID     int
	UID      int
	Comm     string
	Command  []string // empty when it cannot be read
	Resident uint64   // resident memory in bytes; 0 when unknown
}
