//go:build !linux

package abandoned

import "github.com/tetherproc/tether/internal/proc"

// addPorts has nothing to add where no tree is found.
func addPorts(proc.FS, []Tree) {}
