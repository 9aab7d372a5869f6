// Package readiness waits for a server that was just started: until
// each of its ports has a listener (a listening TCP socket or a bound UDP
// one), until a GET to the listener is answered, or until nothing listens
// any more; and it stops at once when the server's process is gone
// first, so that a crash is not waited out to the timeout.
//
// It is the library behind tether wait. It is apart from package reclaim,
// which finds and ends processes, because it ends nothing: it asks
// package sockets who holds a port, package probe whose each holder is,
// and net/http (crypto/tls for https, Go's own resolver for names) for
// the GETs. Of the public packages it imports probe alone, whose
// verdicts it reports; nothing imports it but the command line.
//
// A check costs one read of the socket table and no walk of any
// process's descriptors (unless the listener must be the server's own):
// a wait costs next to nothing however long it lasts. The pauses between
// checks are spent waiting on a handle of the server's process (a pidfd
// on Linux), so that its exit ends the wait at once and a later process
// given the same PID is never taken for it.
package readiness
