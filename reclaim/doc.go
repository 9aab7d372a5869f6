// Package reclaim finds the tethered processes that escaped — stranded
// once their supervisor died — verifies each one, and terminates it.
//
// It is the library behind tether reclaim ([Reclaim]), tether ps ([List])
// and tether run --port (a [Reclaim] of the ports' holders). A reclaim is
// one pass: one snapshot, one selection, then the signals and the report.
// The snapshot is one scan of every process's environment for the
// markers of package probe (with the records of renamed members and the
// cgroups of contained runs), or, for a port, its listening sockets and
// the processes that hold them (package sockets); the run records are
// read once, and every candidate is checked once with [probe.Check]. The
// selection decides each process once and makes the runs of the
// selected ones whole.
//
// Nothing is signalled on a guess. On Linux a process is held by a pidfd
// opened before it is checked and signalled through it, so a PID recycled
// between finding and signalling is never hit; before the signal, what
// selected it is confirmed: alive through the pidfd, still holding the
// socket of a port it was found by, still carrying its markers (a process
// tied to its run otherwise is checked whole again). On macOS, which has
// no pidfd, it is signalled with kill(2) right after its start time is
// read again, which narrows that window to the time between the two
// calls. PID 1, tether itself and its
// ancestors, kernel threads and processes whose environment cannot be
// read are never signalled at all. By default only the caller's
// processes are selected: those whose real user id is the caller's.
//
// Limits: ports are looked up in the caller's network namespace only. On
// macOS, which has no table of sockets, every process's descriptors are
// read (other users' only as root, so that a port held by another user
// can look free). On other systems nothing is found.
package reclaim
