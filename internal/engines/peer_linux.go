package engines

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// peerUID is the user of the process that listens at the other end of a
// connected unix socket, as the kernel recorded it (SO_PEERCRED).
func peerUID(fd int) (int, error) {
	cred, err := unix.GetsockoptUcred(fd, unix.SOL_SOCKET, unix.SO_PEERCRED)
	if err != nil {
		return -1, fmt.Errorf("SO_PEERCRED: %w", err)
	}
	return int(cred.Uid), nil
}
