package probe

import (
	"time"

	"github.com/tetherproc/tether/internal/proc"
)

// Report is everything [Check] learned about one PID. Fields that could
// not be learned are left zero (UID and Supervisor nil).
type Report struct {
	PID      int     // the PID asked about
	Verdict  Verdict // what the process is
	Tethered bool    // Verdict is Supervised or Stranded
	// Why is what the verdict rests on: why it is foreign or stranded,
	// what could not be read; the zero Why for a process supervised by
	// a supervisor found alive.
	Why Why

	PPID      int    // its parent
	PGID      int    // its process group
	UID       *int   // its real user id
	StartTime uint64 // as in procid.ID: only compared for equality
	Comm      string // the kernel's command name (15 bytes on Linux)

	// Name and RunID are the values of the name variable and
	// TETHER_RUN_ID, when the environment holds them.
	Name  string
	RunID string
	// Container is what tied a process without markers of its own to
	// its run (its cgroup, its PID namespace's init, its run's record);
	// Name, RunID and Supervisor are then the container's or the
	// record's.
	Container *Container
	// Cgroup is its cgroup v2 path, as /proc/PID/cgroup names it, where
	// it was read: for a process without markers of its own, whose
	// run's group may say whose it is. "" elsewhere.
	Cgroup string
	// Supervisor is what became of the process TETHER_SUPERVISOR names.
	Supervisor *SupervisorReport
	// Command is the command line, for display only: a process can
	// rewrite it, and it is never trusted.
	Command []string
}

// Started is when the process started, from StartTime (clock ticks since
// boot on Linux, microseconds since the epoch on macOS): for its age.
func (r Report) Started() (time.Time, error) { return proc.Host().StartedAt(r.StartTime) }
