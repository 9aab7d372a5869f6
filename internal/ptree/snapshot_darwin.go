//go:build darwin

package ptree

import (
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/tetherproc/tether/internal/proc"
)

// ReadSnapshot reads the whole table in one sysctl, kern.proc.all: each
// process's kinfo_proc, the same record kern.proc.pid gives of one.
func ReadSnapshot(fs proc.FS) (*Snapshot, error) {
	procs, err := unix.SysctlKinfoProcSlice("kern.proc.all")
	if err != nil {
		return nil, fmt.Errorf("sysctl kern.proc.all: %w", err)
	}
	out := make([]proc.Process, 0, len(procs))
	for i := range procs {
		if p := proc.ProcessOfKinfo(&procs[i]); p.PID > 0 {
			out = append(out, p)
		}
	}
	return newSnapshot(out, false), nil
}
