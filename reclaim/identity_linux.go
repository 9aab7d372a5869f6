package reclaim

import "golang.org/x/sys/unix"

// pidfsMagic is PID_FS_MAGIC: pidfds live on pidfs from Linux 6.9 on.
const pidfsMagic = 0x50494446

// pidfdIdentity returns the pidfs inode number of the process behind fd:
// unique for the life of the system, unlike a PID, and finer than a start
// time in clock ticks (two processes can start in one 10 ms tick). It is 0
// on kernels where pidfds are anonymous inodes, which tell nothing apart.
func pidfdIdentity(fd int) uint64 {
	var fs unix.Statfs_t
	if unix.Fstatfs(fd, &fs) != nil || fs.Type != pidfsMagic {
		return 0
	}
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil {
		return 0
	}
	return st.Ino
}

// processIdentity is pidfdIdentity for a PID, read through a pidfd of
// its own; 0 when none can be had.
func processIdentity(pid int) uint64 {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return 0
	}
	defer unix.Close(fd)
	return pidfdIdentity(fd)
}
