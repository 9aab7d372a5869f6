package spawn

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// stopSignalOf is the signal that stopped a child, from its wait status.
func stopSignalOf(ws unix.WaitStatus) (syscall.Signal, bool) { return bsdStopSignal(uint32(ws)) }

// continued reports a wait status of a child continued by SIGCONT.
func continued(ws unix.WaitStatus) bool { return bsdContinued(uint32(ws)) }
