package abandoned

import "github.com/tetherproc/tether/procid"

// Member is one process of an [Tree] tree.
type Member struct {
	procid.ID
	PPID     int
	UID      int
	Comm     string
	Command  []string // empty when it cannot be read
	Resident uint64   // resident memory in bytes; 0 when unknown
}
