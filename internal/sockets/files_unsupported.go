//go:build !linux

package sockets

import (
	"github.com/tetherproc/tether/internal/proc"
)

// Files is not read here: proc.ErrUnverifiable.
func Files(fs proc.FS, pid int) ([]File, error) { return nil, proc.ErrUnverifiable }
