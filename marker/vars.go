package marker

// The variables of the protocol, v1. A supervisor writes all of them
// (PIDNamespaceVar only when it knows its namespace) into its child's
// environment with [Markers.Environ], and every process the child starts
// in turn inherits them.
const (
	// DefaultMarkerVar holds [MarkerValue] in every tethered process.
	// [Markers] may name another supervisor's variable in its place.
	DefaultMarkerVar = "TETHER"
	// DefaultNameVar holds the name given to the run (see
	// [ValidateName]). [Markers] may name another in its place.
	DefaultNameVar = "TETHER_NAME"
	// SupervisorVar holds "PID:START" of the process whose death strands
	// the tethered one: a procid.ID, as its String writes it. The start
	// time is there because PIDs are recycled; it is compared only for
	// equality.
	SupervisorVar = "TETHER_SUPERVISOR"
	// RunIDVar holds the id of the run (see [IsRunID]): a run is
	// found again by it long after its supervisor is gone.
	RunIDVar = "TETHER_RUN_ID"
	// PIDNamespaceVar holds the inode number of the PID namespace in
	// which the PID of SupervisorVar is to be read (as in
	// /proc/PID/ns/pid, "pid:[N]"). It is optional: without it the
	// supervisor's PID is read in the tethered process's own namespace.
	PIDNamespaceVar = "TETHER_PIDNS"
)

// MarkerValue is the only value of the marker variable that counts:
// "TETHER=0", "TETHER=true" or "TETHER=1 " mark nothing.
const MarkerValue = "1"
