//go:build darwin

package proc

import (
	"fmt"
	"os"
	"slices"

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

// Scan matches each process's environment (kern.procargs2) against
// entries. Other users' environments are unreadable here unless running
// as root. No execve window is known on macOS: executing is always empty.
func (fs FS) Scan(entries []string) (matched []Member, executing []int) {
	pids, _ := fs.PIDs()
	self := os.Getpid()
	for _, pid := range pids {
		if pid == self {
			continue
		}
		env, err := fs.Environ(pid)
		if err != nil || !hasAll(env, entries) {
			continue
		}
		if p, err := fs.Process(pid); err == nil && !p.Zombie {
			matched = append(matched, Member{PID: pid, StartTime: p.StartTime})
		}
	}
	return matched, nil
}

func hasAll(env, entries []string) bool {
	for _, e := range entries {
		if !slices.Contains(env, e) {
			return false
		}
	}
	return true
}
