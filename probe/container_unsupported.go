//go:build !linux

package probe

import "github.com/tetherproc/tether/internal/proc"

// containerStamp finds no container: only Linux has them.
func containerStamp(*Report, proc.Process) ([]string, *Container, bool) { return nil, nil, false }
