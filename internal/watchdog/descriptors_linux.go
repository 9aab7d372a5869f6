package watchdog

import (
	"os"

	"golang.org/x/sys/unix"
)

// pipe makes the watchdog's pipe: the read end a plain descriptor for
// the child, the write end a blocking os.File, which the runtime's
// network poller is never asked to watch.
func pipe() (r int, w *os.File, err error) {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		return -1, nil, err
	}
	return p[0], os.NewFile(uintptr(p[1]), "tether-watchdog"), nil
}

// memberFile is where the supervisor keeps the list of its tree for the
// watchdog: a file in memory, with no name anywhere.
func memberFile() (*os.File, error) {
	fd, err := unix.MemfdCreate("tether-members", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), "tether-members"), nil
}

// openedExe is how the watchdog's shell first stage starts the program: by the
// descriptor of the binary opened before the supervisor could die, which
// holds even if the file is replaced meanwhile.
func openedExe(string) string { return "/proc/self/fd/4" }
