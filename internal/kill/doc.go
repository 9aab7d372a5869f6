// Package kill signals one process by its identity: through a handle
// opened before the process's start time is read again (Signal), so that
// a recycled PID is never hit. It is what a run's tree is ended with by
// default (internal/runtree, whose Tree.End is tether's one TERM, grace,
// KILL), and what a forwarded signal or a Host's member goes through
// alone.
//
// It is apart from internal/proc, which reads the kernel's process
// table and says what it found; what is signalled is this package's, and
// so is the list of whom never to signal (Protected: PID 1, tether's own
// line), which reclaim and tether wait's holders consult.
package kill
