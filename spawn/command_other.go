//go:build !linux

package spawn

import "os/exec"

// Prepare fails: this platform has no parent-death signal.
func Prepare(cmd *exec.Cmd, cfg Config) (Config, error) {
	return cfg, ErrUnsupported
}

// Start fails: this platform has no parent-death signal.
func Start(cmd *exec.Cmd) error { return ErrUnsupported }
