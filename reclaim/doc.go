// Package reclaim finds the tethered processes that escaped — stranded
// once their supervisor died — verifies each one, and terminates it.
//
// It is the library behind tether reclaim ([Reclaim]), tether ps ([List]),
// tether run --port ([FreePorts]) and tether wait ([WaitSpec.Wait]), which
// all find who holds a port the same way. A reclaim is one pass: find,
// verify, signal, report. Finding is one scan of every process's
// environment for the markers of package probe, or, for a port, a
// sock_diag netlink dump of the listening sockets (the /proc/net tables
// where netlink is not to be had) whose inodes are traced to the
// processes that hold them through their fd tables. Every candidate is
// then checked with [probe.Check].
//
// Nothing is signalled on a guess. A process is signalled only through a
// pidfd opened before its identity is checked again (marker, name, run,
// start time, pidfs inode, state), so a PID recycled between finding and
// signalling is never hit; PID 1, tether itself and its ancestors, kernel
// threads and processes whose environment cannot be read are never
// signalled at all. By default only the caller's processes are selected:
// those whose real user id is the caller's.
//
// Limits: ports are looked up in the caller's network namespace only. On
// macOS, which has no table of sockets, every process's descriptors are
// read through the proc_info system call (other users' only as root;
// lsof's field output where the call is refused), and processes are
// signalled with kill(2) right after a fresh check, since there is no
// pidfd. On other systems nothing is found.
package reclaim
