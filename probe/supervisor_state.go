package probe

// SupervisorState is what became of the process named by TETHER_SUPERVISOR.
type SupervisorState string

// The supervisor states. Only Alive and Unknown keep a process supervised;
// Unknown does so because a guess must never make a process reclaimable.
const (
	SupervisorAlive   SupervisorState = "alive"
	SupervisorGone    SupervisorState = "gone"
	SupervisorReused  SupervisorState = "reused" // the PID now has another start time
	SupervisorZombie  SupervisorState = "zombie"
	SupervisorUnknown SupervisorState = "unknown"
)
