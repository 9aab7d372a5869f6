//go:build tetherportable

package proc

import "os"

// othersAlive counts the threads of pid other than its leader still
// running: a process whose leader shows as a zombie has not exited until
// they have too.
func (fs FS) othersAlive(pid int) int {
	tasks, err := os.ReadDir(fs.Path(pid, "task"))
	if err != nil {
		return 0
	}
	return max(0, len(tasks)-1)
}
