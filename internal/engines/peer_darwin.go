package engines

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// peerUID is the user of the process that listens at the other end of a
// connected unix socket, as the kernel recorded it (LOCAL_PEERCRED).
func peerUID(fd int) (int, error) {
	cred, err := unix.GetsockoptXucred(fd, unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	if err != nil {
		return -1, fmt.Errorf("LOCAL_PEERCRED: %w", err)
	}
	return int(cred.Uid), nil
}
