package peers

import (
	"fmt"
	"strconv"

	"golang.org/x/sys/unix"
)

// Look looks at descriptor fd of process pid in the /proc at root: 0 is
// taken as an input (is a writer left?), any other as an output (is a
// reader left?).
func Look(root string, pid, fd int) (End, error) {
	path := root + "/" + strconv.Itoa(pid) + "/fd/" + strconv.Itoa(fd)
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return End{}, fmt.Errorf("stat %s: %w", path, err)
	}
	e := End{Inode: st.Ino}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFIFO:
		e.Kind = Pipe
		e.Known, e.HungUp = pipeHungUp(path, st.Ino, fd == 0)
	case unix.S_IFSOCK:
		e.Kind = OtherSocket
		if s, ok := unixSocket(st.Ino); ok {
			e.Kind, e.Peer, e.Known = UnixSocket, s.peer, true
			if fd == 0 {
				e.HungUp = s.shutdown&rcvShutdown != 0
			} else {
				e.HungUp = s.shutdown&sendShutdown != 0
			}
		}
	case unix.S_IFCHR:
		if isTerminal(st.Rdev) {
			e.Kind = Terminal
		}
	}
	return e, nil
}

// pipeHungUp opens the pipe at path anew, on the side that tells
// (reading for an input, writing for an output), makes sure it is still
// the pipe with inode ino, and polls it without waiting and with no
// event asked for.
func pipeHungUp(path string, ino uint64, input bool) (known, hungUp bool) {
	flags := unix.O_WRONLY
	gone := int16(unix.POLLERR)
	if input {
		flags, gone = unix.O_RDONLY, unix.POLLHUP
	}
	fd, err := unix.Open(path, flags|unix.O_NONBLOCK|unix.O_CLOEXEC|unix.O_NOCTTY, 0)
	if err != nil {
		return false, false
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Ino != ino || st.Mode&unix.S_IFMT != unix.S_IFIFO {
		return false, false // the descriptor was replaced meanwhile
	}
	p := []unix.PollFd{{Fd: int32(fd)}}
	for {
		_, err := unix.Poll(p, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return false, false
		}
		return true, p[0].Revents&gone != 0
	}
}

// isTerminal reports whether a character device is a terminal, without
// opening it: its major number is a tty's or a pseudo-terminal's.
func isTerminal(rdev uint64) bool {
	major := unix.Major(rdev)
	// 4 and 5: the virtual consoles and /dev/tty; 136-143: the
	// pseudo-terminals' slaves (Unix 98).
	return major == 4 || major == 5 || (major >= 136 && major <= 143)
}
