package spawn

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
