// Package signame spells signals the one way tether writes and reads
// them: TERM, KILL, without SIG. The supervisor, the escalation that ends
// processes, reclaim's report and the command line all name signals, and
// a name written by one must be read back by another; none of them is a
// reader of the process table, so the names live apart from it, below
// everything that sends a signal.
package signame
