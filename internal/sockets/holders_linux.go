//go:build linux

package sockets

import (
	"strconv"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/tetherproc/tether/internal/proc"
)

// socketInodes appends the inodes of pid's sockets to dst. It works
// relative to an open table (rootfd) and the process's fd directory, so
// that each lookup resolves one path component, not four; buf holds the
// directory entries.
func socketInodes(rootfd, pid int, dst []uint64, buf []byte) []uint64 {
	dfd, err := unix.Openat(rootfd, strconv.Itoa(pid)+"/fd", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return dst
	}
	defer unix.Close(dfd)
	var names []string
	// Read until a read gives nothing: one that leaves room is no end,
	// as getdents64 stops short once the reading thread has a signal
	// pending (Go's runtime sends its threads SIGURG).
	for {
		n, err := unix.Getdents(dfd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil || n <= 0 {
			return dst
		}
		_, _, names = unix.ParseDirent(buf[:n], -1, names[:0])
		for _, name := range names {
			// stat follows the link to the open file itself: a
			// socket's mode and inode, with no path rendered (a
			// readlink would render "/dev/pts/0" and the like).
			var st unix.Stat_t
			if unix.Fstatat(dfd, name, &st, 0) == nil && st.Mode&unix.S_IFMT == unix.S_IFSOCK {
				dst = append(dst, st.Ino)
			}
		}
	}
}

// SocketHolders finds the processes that hold any of the sockets named
// by inode, reading the fd table of every process (only pids, when
// given), two workers per core. It returns, per PID, the inodes it holds.
func SocketHolders(fs proc.FS, inodes map[uint64]bool, pids []int) (map[int][]uint64, error) {
	if len(inodes) == 0 {
		return nil, nil
	}
	if pids == nil {
		var err error
		if pids, err = fs.PIDs(); err != nil {
			return nil, err
		}
	}
	rootfd, err := unix.Open(fs.Root(), unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer unix.Close(rootfd)
	var mu sync.Mutex
	out := map[int][]uint64{}
	proc.Parallel(len(pids), func(i int, buf *[]byte) {
		var held [16]uint64
		for _, ino := range socketInodes(rootfd, pids[i], held[:0], *buf) {
			if inodes[ino] {
				mu.Lock()
				out[pids[i]] = append(out[pids[i]], ino)
				mu.Unlock()
			}
		}
	})
	return out, nil
}
