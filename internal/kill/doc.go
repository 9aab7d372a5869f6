// Package kill ends processes: one verified signal (Signal: through a
// handle opened before the process's start time is read again, so that
// a recycled PID is never hit) and the one TERM, grace, KILL of tether
// (Escalation) that every ending is made of: the cleanup of a run's
// tree, a Host's Stop, the watchdog's end of a run, and each process a
// reclaim terminates.
//
// It is apart from internal/proc, which reads the kernel's process
// table and says what it found; what is signalled, when and how hard is
// this package's, and whom to spare (PID 1, tether's own line) is its
// callers' policy.
package kill
