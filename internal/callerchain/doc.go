// Package callerchain follows the processes a supervised run was
// started under, beyond its parent: the shell, make, the terminal's
// session, up to where their deaths would no longer end that session
// (init, systemd, a daemon, the tether run tether itself runs in). When
// a terminal is closed or a CI job is cancelled, one of those dies
// first, and the run must end with it as it ends with its parent; the
// kernel's parent-death signal covers the parent alone.
//
// It is the walk up the chain, read from /proc or macOS's process
// table, and the watch on it: pidfds on Linux (a timed look without
// them), kqueue exit events on macOS, which also stand in for the
// parent-death signal there (WatchParent). It is apart from the
// supervisor because it shares none of its state: what a death means
// for a run is the supervisor's to say.
package callerchain
