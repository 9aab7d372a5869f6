//go:build !unix

package reclaim

import "io/fs"

// inodeOf has no inode to give here.
func inodeOf(fs.FileInfo) uint64 { return 0 }
