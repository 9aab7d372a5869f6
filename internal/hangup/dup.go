//go:build linux || darwin

package hangup

import (
	"os"

	"golang.org/x/sys/unix"
)

// Dup is a descriptor of f's own for the watch, closed by it, so that f
// may be closed meanwhile; taken without f.Fd, which would make the file
// description (the client's and the command's as well) blocking.
func Dup(f *os.File) (int, error) {
	if f == nil {
		return -1, os.ErrInvalid
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return -1, err
	}
	fd := -1
	cerr := rc.Control(func(raw uintptr) {
		fd, err = unix.FcntlInt(raw, unix.F_DUPFD_CLOEXEC, 0)
	})
	if cerr != nil {
		return -1, cerr
	}
	return fd, err
}

// CanHangUp says whether fd, a command's input or output, can hang up:
// a pipe or a socket. A terminal, a file or the null device has no
// other end to lose; kind names what fd is, for the trace.
func CanHangUp(fd int) (kind string, ok bool) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return "unreadable (" + err.Error() + ")", false
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFIFO:
		return "a pipe", true
	case unix.S_IFSOCK:
		return "a socket", true
	case unix.S_IFCHR:
		return "a character device (a terminal or the null device)", false
	}
	return "a file", false
}
