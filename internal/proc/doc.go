// Package proc is tether's one reading of the kernel's process table, in
// prometheus/procfs's shape: an FS (a /proc mounted at a root directory),
// a reader on it for each file of a process (stat, status, cmdline,
// environ, cgroup, statm, the children lists, the namespaces; kern.proc
// and procargs2 on macOS) and of the system (mountinfo, tty drivers, the
// last and the largest PID), each with its parser.
//
// It exists so that each file is read, and each failure classified, in
// one place. The parsers (ParseStat, ParseStatus, ParseEnviron,
// ParseProcArgs2, ...) are pure functions over bytes, tested on fixtures
// in testdata/ and fuzzed; the readers hang off an FS so that they too
// run on fixtures: Host is the live /proc, NewFS a copy of one on disk.
//
// What is made of these readings lives beside it, so that this package
// stays a reader: holding a process for a signal is internal/pidfd's,
// walking the table as a tree and scanning every environment
// internal/ptree's, sockets (the /proc/net tables, the fd tables,
// addresses) internal/sockets', the names of signals internal/signame's,
// and the TERM, grace, KILL escalation internal/kill's.
//
// Failures are classified, never guessed: ErrGone when no process has the
// PID, ErrUnverifiable when one may but cannot be read (another user's,
// hidepid, a platform with no reader), ErrExecuting when an execve has not
// yet laid out the environment.
package proc
