//go:build unix

package reclaim

import (
	"io/fs"
	"syscall"
)

// inodeOf is the inode of a file's stat.
func inodeOf(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}
