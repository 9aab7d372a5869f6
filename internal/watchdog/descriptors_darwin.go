package watchdog

import (
	"errors"
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

// memberFile is where the supervisor keeps the list of its tree for the
// watchdog: a temporary file, unlinked at once, that only the two share.
func memberFile() (*os.File, error) {
	f, err := os.CreateTemp("", "tether-members-")
	if err != nil {
		return nil, err
	}
	_ = os.Remove(f.Name())
	return f, nil
}

// openedExe is how the watchdog's shell first stage starts the program: by its
// path, as macOS has no /proc/self/fd to exec a descriptor through.
func openedExe(path string) string { return path }

// waiterFD: there is no waiter on macOS (waiter_linux.go), which has no
// file in memory to run it from; the first stage is the shell script.
func waiterFD() (int, error) { return -1, errors.New("no watchdog waiter on macOS") }
