// Package proc is tether's one reading of the kernel's process table: the
// parsers of its formats, the readers that feed them, the scan over every
// process, and the handle (a pidfd where the kernel has them) that a
// signal goes through. Signalling a process by its identity and the TERM,
// grace, KILL escalation that ends a set of processes are
// internal/kill's.
//
// It exists so that each of these rules is written once. A scan that
// skipped a process caught in the middle of an execve in one place and
// waited for it in another would make tether's promises depend on which
// code path a process happened to meet.
//
// The parsers (ParseStat, ParseStatus, ParseEnviron, ParseProcArgs2,
// ParseNetTable) are pure functions over bytes, tested on fixtures in
// testdata/ and fuzzed. The readers hang off an FS, a /proc mounted at a
// root directory, as prometheus/procfs does, so that they too run on
// fixtures: Host is the live /proc, NewFS a copy of one on disk.
//
// Failures are classified, never guessed: ErrGone when no process has the
// PID, ErrUnverifiable when one may but cannot be read (another user's,
// hidepid, a platform with no reader), ErrExecuting when an execve has not
// yet laid out the environment.
package proc
