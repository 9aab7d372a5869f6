package spawn

import (
	"os"

	"golang.org/x/sys/unix"
)

// memberFile is where the supervisor keeps the list of its tree for the
// watchdog: a file in memory, with no name anywhere.
func memberFile() (*os.File, error) {
	fd, err := unix.MemfdCreate("tether-members", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), "tether-members"), nil
}
