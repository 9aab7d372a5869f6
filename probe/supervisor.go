package probe

import (
	"fmt"
	"strconv"
	"strings"
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
	p, st, ok := strings.Cut(v, ":")
	if !ok {
		return Supervisor{}, fmt.Errorf("invalid supervisor %q: want PID:START", v)
	}
	pid, err := strconv.Atoi(p)
	if err != nil || pid <= 0 {
		return Supervisor{}, fmt.Errorf("invalid supervisor %q: bad PID %q", v, p)
	}
	start, err := strconv.ParseUint(st, 10, 64)
	if err != nil {
		return Supervisor{}, fmt.Errorf("invalid supervisor %q: bad start time %q", v, st)
	}
	return Supervisor{PID: pid, StartTime: start}, nil
}
