package probe

// Report is everything Check learned about one PID. Fields that could not
// be learned are left zero (UID and Supervisor nil) and omitted from JSON.
type Report struct {
	PID      int     `json:"pid"`
	Verdict  Verdict `json:"verdict"`
	Tethered bool    `json:"tethered"`
	// Reason explains a verdict other than supervised: why it is foreign,
	// why it is stranded, what could not be read.
	Reason string `json:"reason,omitempty"`

	PPID      int    `json:"ppid,omitempty"`
	PGID      int    `json:"pgid,omitempty"`
	UID       *int   `json:"uid,omitempty"`
	StartTime uint64 `json:"start_time,omitempty"`
	Comm      string `json:"comm,omitempty"`

	// Name and RunID are the values of the name variable and
	// TETHER_RUN_ID, when the environment holds them.
	Name       string            `json:"name,omitempty"`
	RunID      string            `json:"run_id,omitempty"`
	Supervisor *SupervisorReport `json:"supervisor,omitempty"`
	Command    []string          `json:"command,omitempty"`
}

// SupervisorReport describes the process named by TETHER_SUPERVISOR.
type SupervisorReport struct {
	PID       int             `json:"pid"`
	StartTime uint64          `json:"start_time"`
	State     SupervisorState `json:"state"`
}
