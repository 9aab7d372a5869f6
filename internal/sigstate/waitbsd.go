package sigstate

import "syscall"

// macOS's wait statuses are decoded by hand: XNU reports a child
// continued by SIGCONT as stopped by SIGCONT (W_STOPCODE(SIGCONT), 0x137f,
// in bsd/kern/kern_exit.c), which x/sys's WaitStatus takes for a stop,
// and it does not take a stop by SIGSTOP for one. The low 7 bits are 0x7f
// for both; the byte above is the signal. In no build file of its own,
// so that it is tested on Linux.
const (
	bsdWaitStopped = 0x7f
	bsdSIGCONT     = 0x13
)

// bsdStopSignal is the signal that stopped a child, from its wait status.
func bsdStopSignal(w uint32) (syscall.Signal, bool) {
	sig := syscall.Signal(w >> 8 & 0xff)
	return sig, w&0x7f == bsdWaitStopped && sig != bsdSIGCONT
}

// bsdContinued reports a wait status of a child continued by SIGCONT.
func bsdContinued(w uint32) bool {
	return w&0x7f == bsdWaitStopped && w>>8&0xff == bsdSIGCONT
}
