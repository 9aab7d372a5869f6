//go:build unix

package reclaim

import "syscall"

// openFilesLimit is the soft limit of open files.
func openFilesLimit() (int, bool) {
	var l syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l) != nil {
		return 0, false
	}
	return int(min(l.Cur, 1<<20)), true
}
