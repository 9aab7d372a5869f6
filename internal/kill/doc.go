// Package kill ends processes: one verified signal (Signal: through a
// handle opened before the process's start time is read again, so that
// a recycled PID is never hit) and the one TERM, grace, KILL of tether
// (Escalation) that every ending is made of. The escalation's one caller
// is internal/runtree, whose Tree is the cleanup of a run's tree, a
// Host's Stop, the watchdog's end of a run, and the set a reclaim
// terminates; the verified signal is also sent alone (a forwarded
// signal, a Host's member through its own handle's fallback).
//
// It is apart from internal/proc, which reads the kernel's process
// table and says what it found; what is signalled, when and how hard is
// this package's, and so is the list of whom never to signal (Protected:
// PID 1, tether's own line), which reclaim and tether wait's holders
// consult.
package kill
