package spawn

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// pipe makes the watchdog's pipe: the read end a plain descriptor for
// the child, the write end a blocking os.File. macOS has no pipe2: the
// descriptors are marked close-on-exec under the fork lock, as os.Pipe
// does.
func pipe() (r int, w *os.File, err error) {
	var p [2]int
	syscall.ForkLock.RLock()
	err = unix.Pipe(p[:])
	if err == nil {
		unix.CloseOnExec(p[0])
		unix.CloseOnExec(p[1])
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return -1, nil, err
	}
	return p[0], os.NewFile(uintptr(p[1]), "tether-watchdog"), nil
}
