package probe

// SupervisorReport describes the process named by TETHER_SUPERVISOR: the
// supervisor stamped (a procid.ID), and what became of it.
type SupervisorReport struct {
	PID       int
	StartTime uint64
	State     SupervisorState // only Alive and Unknown keep a process supervised
	// Namespace is the PID namespace PID is read in, when it is not the
	// reader's, and HostPID the supervisor's PID as the reader sees it,
	// when it was found there.
	Namespace uint64
	HostPID   int
}

// LocalPID is the supervisor's PID as the reader's /proc numbers it:
// HostPID where the supervisor was found from another PID namespace,
// else PID.
func (s SupervisorReport) LocalPID() int {
	if s.HostPID != 0 {
		return s.HostPID
	}
	return s.PID
}
