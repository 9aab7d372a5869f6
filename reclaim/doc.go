// Package reclaim finds the tethered processes that escaped — stranded
// once their supervisor died — verifies each one, and terminates it.
//
// It is the library behind tether reclaim ([Reclaim]), tether ps ([List]),
// tether run --port ([FreePorts]) and tether wait ([WaitSpec.Wait]), which
// all find who holds a port the same way. A reclaim is one pass: find,
// verify, signal, report. Finding is one scan of every process's
// environment for the markers of package probe, or, for a port, the
// listening sockets and the processes that hold them: on Linux a
// sock_diag netlink dump of the sockets (the /proc/net tables where
// netlink is not to be had) whose inodes are traced to their holders
// through the fd tables; on macOS every process's descriptors, read
// through libSystem's libproc. Every candidate is then checked with
// [probe.Check].
//
// Nothing is signalled on a guess. On Linux a process is signalled only
// through a pidfd opened before its identity is checked again (marker,
// name, run, start time, pidfs inode, state), so a PID recycled between
// finding and signalling is never hit. On macOS, which has no pidfd, it
// is signalled with kill(2) right after a fresh check of the same (its
// start time in place of the pidfs inode), which narrows that window to
// the time between the two calls. PID 1, tether itself and its
// ancestors, kernel threads and processes whose environment cannot be
// read are never signalled at all. By default only the caller's
// processes are selected: those whose real user id is the caller's.
//
// Limits: ports are looked up in the caller's network namespace only. On
// macOS, which has no table of sockets, every process's descriptors are
// read through libproc's proc_pidinfo and proc_pidfdinfo (other users'
// only as root, so that a port held by another user can look free;
// lsof's field output where libproc is refused). On other systems
// nothing is found.
package reclaim
