package probe

import (
	"fmt"
	"strconv"
	"strings"
)

// Supervisor names one process exactly: a PID and the start time it had,
// so that a recycled PID is told apart from the process that held it.
// Start is in the platform's own unit (clock ticks since boot on Linux,
// microseconds since the epoch on macOS) and is only compared for equality.
type Supervisor struct {
	PID   int
	Start uint64
}

// String formats s as TETHER_SUPERVISOR holds it: "PID:START".
func (s Supervisor) String() string {
	return strconv.Itoa(s.PID) + ":" + strconv.FormatUint(s.Start, 10)
}

// ParseSupervisor parses "PID:START".
func ParseSupervisor(v string) (Supervisor, error) {
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
	return Supervisor{PID: pid, Start: start}, nil
}

// SupervisorOf returns the Supervisor value that names the live process
// pid, for stamping into a child's environment.
func SupervisorOf(pid int) (Supervisor, error) {
	p, err := ReadProcess(pid)
	if err != nil {
		return Supervisor{}, err
	}
	return Supervisor{PID: pid, Start: p.Start}, nil
}
