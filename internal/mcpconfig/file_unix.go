//go:build unix

package mcpconfig

import (
	"io/fs"
	"os"
	"syscall"
)

// fileOwner is a file's owner, kept when the file is written anew.
type fileOwner struct{ uid, gid int }

func ownerOf(fi fs.FileInfo) fileOwner {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return fileOwner{int(st.Uid), int(st.Gid)}
	}
	return fileOwner{-1, -1}
}

func (o fileOwner) mine() bool { return o.uid == os.Getuid() }

// privileged: the caller can give a file to its owner (root).
func privileged() bool { return os.Getuid() == 0 }

// linkCount is the number of hard links to the file.
func linkCount(fi fs.FileInfo) int {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int(st.Nlink)
	}
	return 1
}

// keep gives the new file f the owner of the file it replaces. Only
// root can give a file away; anyone else's new file is theirs already,
// as the one it replaces was (or the rename would not be allowed).
func (o fileOwner) keep(f *os.File) error {
	if o.uid < 0 || (o.uid == os.Getuid() && o.gid == os.Getgid()) {
		return nil
	}
	if err := f.Chown(o.uid, o.gid); err != nil && os.Getuid() == 0 {
		return err
	}
	return nil
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
