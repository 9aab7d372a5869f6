// Package reclaim finds the tethered processes that escaped — stranded
// once their supervisor died — verifies each one, and terminates it.
//
// It is the library behind tether reclaim, tether ps and tether run --port.
// Finding is one walk of /proc: each candidate's environment is read and
// matched against the marker protocol (package probe), or, for a port, the
// kernel's socket tables (/proc/net/tcp, tcp6, udp, udp6) are read and the
// socket's inode traced to the processes that hold it through
// /proc/PID/fd.
//
// Nothing is signalled on a guess. A process is signalled only through a
// pidfd opened before its identity is checked again (marker, name, start
// time, state), so a PID recycled between finding and signalling is never
// hit; PID 1, tether itself and its ancestors, kernel threads and processes
// whose environment cannot be read are never signalled at all.
//
// Limits: the socket tables show only the reader's network namespace; on
// macOS ports are not looked up (no /proc/net) and processes are signalled
// with kill(2) right after a fresh check, since there is no pidfd; on other
// systems nothing is found.
package reclaim
