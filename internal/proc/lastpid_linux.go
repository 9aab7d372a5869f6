package proc

import (
	"bytes"
	"os"
	"strconv"
	"sync"
)

// LastPID is the last PID the kernel gave out in the caller's PID
// namespace (/proc/sys/kernel/ns_last_pid): PIDs are handed out in
// rising order, wrapping past pid_max, so every process made after it
// was read has a PID past it. ok is false where the value cannot be
// read, or where the table is not the caller's namespace's (a /proc
// mounted for another), whose PIDs it would not number.
func (fs FS) LastPID() (pid int, ok bool) {
	if !fs.live || !ownNamespace() {
		return 0, false
	}
	data, err := ReadPlain(fs.root + "/sys/kernel/ns_last_pid")
	if err != nil {
		return 0, false
	}
	n, err := strconv.Atoi(string(bytes.TrimSpace(data)))
	return n, err == nil && n >= 0
}

// ownNamespace reports whether /proc numbers the caller's own PID
// namespace: /proc/self names the caller's PID there.
var ownNamespace = sync.OnceValue(func() bool {
	self, err := os.Readlink(DefaultRoot + "/self")
	return err == nil && self == strconv.Itoa(os.Getpid())
})

// Leader reports whether pid is a process (the leader of its thread
// group) and not one of its threads, which /proc also answers for.
func (fs FS) Leader(pid int) bool {
	st, err := fs.Status(pid)
	return err == nil && st.TGID == pid
}
