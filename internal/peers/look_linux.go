package peers

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/tetherproc/tether/internal/proc"
)

// Supported says that Look can tell: on Linux.
const Supported = true

// Look looks at descriptor fd of process pid in the /proc at root: 0 is
// taken as an input (is a writer left?), any other as an output (is a
// reader left?). ErrGone for a process or descriptor that is no more.
func Look(root string, pid, fd int) (End, error) {
	path := root + "/" + strconv.Itoa(pid) + "/fd/" + strconv.Itoa(fd)
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ESRCH) {
			return End{}, fmt.Errorf("stat %s: %w", path, ErrGone)
		}
		return End{}, fmt.Errorf("stat %s: %w", path, err)
	}
	e := End{Dev: st.Dev, Inode: st.Ino}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFIFO:
		e.Kind = Pipe
		e.Known, e.HungUp = pipeHungUp(path, st.Dev, st.Ino, fd == 0)
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
		if terminalMajors(root)[unix.Major(st.Rdev)] {
			e.Kind = Terminal
		}
	}
	return e, nil
}

// pipeHungUp opens the pipe at path anew, on the side that tells
// (reading for an input, writing for an output), makes sure it is still
// the pipe it was (dev, ino), and polls it without waiting and with no
// event asked for.
func pipeHungUp(path string, dev, ino uint64, input bool) (known, hungUp bool) {
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
	if unix.Fstat(fd, &st) != nil || st.Dev != dev || st.Ino != ino || st.Mode&unix.S_IFMT != unix.S_IFIFO {
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

// majors are the terminals' major numbers of each /proc read, once.
var majors sync.Map // root -> map[uint32]bool

// terminalMajors are the major numbers of the terminal drivers the
// kernel at root has (consoles, serial lines, pseudo-terminals, dynamic
// ones); where its list cannot be read, the fixed numbers of the
// consoles (4, 5) and the pseudo-terminals (136-143).
func terminalMajors(root string) map[uint32]bool {
	if m, ok := majors.Load(root); ok {
		return m.(map[uint32]bool)
	}
	m := map[uint32]bool{4: true, 5: true}
	for n := uint32(136); n <= 143; n++ {
		m[n] = true
	}
	if data, err := os.ReadFile(root + "/tty/drivers"); err == nil {
		if read, err := proc.ParseTTYDrivers(data); err == nil {
			for n := range read {
				m[n] = true
			}
		}
	}
	majors.Store(root, m)
	return m
}
