package engines

import (
	"fmt"
	"syscall"

	"golang.org/x/sys/unix"
)

// peerUID is the user of the process that listens at the other end of a
// connected unix socket, as the kernel recorded it (LOCAL_PEERCRED).
func peerUID(rc syscall.RawConn) (int, error) {
	var cred *unix.Xucred
	var err error
	if cerr := rc.Control(func(fd uintptr) {
		cred, err = unix.GetsockoptXucred(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	}); cerr != nil {
		return -1, cerr
	}
	if err != nil {
		return -1, fmt.Errorf("LOCAL_PEERCRED: %w", err)
	}
	return int(cred.Uid), nil
}
