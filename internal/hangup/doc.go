// Package hangup tells when a stdio server's client has gone: its
// standard input has no writer left and its standard output no reader.
// A stdio server (an MCP server, a language server) is talked to
// through those two alone; a client that drops one without ending it (a
// reconnect, a session closed, the client's own bug) leaves it with no
// one to reach it again, and one that does not end on end-of-input runs
// for good. The kernel says so without a byte being read: a pipe's read
// end reports POLLHUP once its last writer has closed (unread data or
// not), its write end POLLERR once its last reader has, a socket POLLHUP
// once its peer has closed. Both ends must have hung up: a client that
// closes the input alone is ending the server the usual way, and still
// reads what it answers.
//
// The watch is a mechanism of its own, with a poll loop per platform
// (an eventfd-woken poll(2) on Linux, a timed look on macOS, where
// poll(2) is built on kqueue): the supervisor only decides what a
// hang-up means for its run.
package hangup
