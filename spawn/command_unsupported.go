//go:build !linux

package spawn

import "os/exec"

// Start fails: this platform has no parent-death signal.
func Start(cmd *exec.Cmd, cfg Config) (Config, error) { return cfg, ErrUnsupported }
