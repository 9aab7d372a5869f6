package engines

import (
	"fmt"
	"syscall"

	"golang.org/x/sys/unix"
)

// peerUID is the user of the process that listens at the other end of a
// connected unix socket, as the kernel recorded it (SO_PEERCRED).
func peerUID(rc syscall.RawConn) (int, error) {
	var cred *unix.Ucred
	var err error
	if cerr := rc.Control(func(fd uintptr) {
		cred, err = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); cerr != nil {
		return -1, cerr
	}
	if err != nil {
		return -1, fmt.Errorf("SO_PEERCRED: %w", err)
	}
	return int(cred.Uid), nil
}
