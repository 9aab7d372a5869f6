//go:build !linux && !darwin

package spawn

// Supervise fails: this platform has no parent-death signal.
func Supervise(cfg Config) (int, error) {
	return 0, &StartError{Status: 125, Err: errUnsupported}
}

// Exec fails: this platform has no parent-death signal.
func Exec(cfg Config) error {
	return &StartError{Status: 125, Err: errUnsupported}
}

// markInit has nothing to mark: no helper is started here.
func markInit() {}
