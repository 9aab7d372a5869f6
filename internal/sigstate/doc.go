// Package sigstate reads and changes the process's signal state as a
// supervisor needs it: what its caller left it (ignored, blocked and
// caught signals), which signals it may catch to pass on, the signal the
// C library reserves, the end by a signal as the command died, the
// terminal handed over with SIGTTOU blocked, and the stop and continue
// of a child's wait status.
//
// Each of these differs by platform, down to how the state is read
// (Linux's /proc status file and raw rt_sigaction; macOS's process
// record and libSystem's pthread_sigmask through assembly trampolines,
// with XNU's wait statuses decoded by hand), and none of it touches a
// run's state: kept apart, the supervisor reads as one path for both
// platforms.
package sigstate
