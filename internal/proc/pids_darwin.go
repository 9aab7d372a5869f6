//go:build darwin

package proc

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// PIDs lists the processes through sysctl kern.proc.all.
func (fs FS) PIDs() ([]int, error) {
	procs, err := unix.SysctlKinfoProcSlice("kern.proc.all")
	if err != nil {
		return nil, fmt.Errorf("sysctl kern.proc.all: %w", err)
	}
	pids := make([]int, 0, len(procs))
	for _, k := range procs {
		if pid := int(k.Proc.P_pid); pid > 0 {
			pids = append(pids, pid)
		}
	}
	return pids, nil
}
