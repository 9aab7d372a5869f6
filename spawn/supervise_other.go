//go:build !linux && !darwin

package spawn

// Supervise fails: this platform has no parent-death signal.
func Supervise(cfg Config) (int, error) {
	return 0, &StartError{Status: 125, Err: ErrUnsupported}
}

// Exec fails: this platform has no parent-death signal.
func Exec(cfg Config) error {
	return &StartError{Status: 125, Err: ErrUnsupported}
}

// WatchdogMain fails: there is no supervisor to watch on this platform.
func WatchdogMain(args []string) int { return 125 }

// Pick finds no containment: this platform has neither cgroups nor PID
// namespaces.
func Pick(c Containment) (Containment, error) {
	return NoContainment, &ContainError{Mode: c, Tried: []string{"cgroup and pidns: Linux only"}}
}
