// Package pidfd holds processes for signalling: a pidfd where the kernel
// gives one, else the PID and the start time it had when it was held.
//
// It exists apart from internal/proc because holding is not reading. A
// signal sent through a handle reaches the process it was opened on or
// nothing, never a later holder of the PID; what the kernel offers for
// that (pidfd_open and pidfd_send_signal came with Linux 5.3, and
// sandboxes refuse them) is probed once (Pidfds) and every sender takes
// the same path from then on. The readers it checks identities with are
// internal/proc's, and a handle that finds its process gone says so with
// proc.ErrGone, as a read would.
package pidfd
