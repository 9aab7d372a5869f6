package probe

import (
	"fmt"
	"strconv"

	"github.com/tetherproc/tether/internal/marker"
)

// Supervisor is the value of [SupervisorVar]: the process whose death
// strands a tethered one, named exactly by its PID and the start time it
// had, so that a recycled PID is told apart from the process that held
// it. StartTime is in the platform's own unit (clock ticks since boot on
// Linux, microseconds since the epoch on macOS) and is only compared for
// equality.
type Supervisor struct {
	PID       int    // as seen where the stamp was made
	StartTime uint64 // field 22 of /proc/PID/stat on Linux
}

// String formats s as TETHER_SUPERVISOR holds it: "PID:START".
func (s Supervisor) String() string {
	return strconv.Itoa(s.PID) + ":" + strconv.FormatUint(s.StartTime, 10)
}

// parseSupervisor parses "PID:START".
func parseSupervisor(v string) (Supervisor, error) {
	id, err := marker.ParseID(v)
	if err != nil {
		return Supervisor{}, fmt.Errorf("invalid supervisor %w", err)
	}
	return Supervisor(id), nil
}
