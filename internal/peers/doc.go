// Package peers tells whether anyone is left at the other end of a
// process's standard input and output: the test for a stdio server (an
// MCP server, a language server) that its client abandoned, which
// nobody can talk to any more.
//
// The kernel keeps the count, and is asked for it rather than every
// process's descriptors being walked to look for the other end: a walk
// cannot see the processes of other users (their fd tables are closed to
// non-root), so it could never prove that no one holds a pipe. For a
// pipe, /proc/PID/fd/N is opened anew (a pipe opened there is a new open
// of the same pipe, as a FIFO's is), and poll(2), with no event asked
// for and no wait, reports POLLHUP on a read end that no writer is left
// for and POLLERR on a write end that no reader is left for; nothing is
// read or written. For a Unix socket, sock_diag gives the socket's
// shutdown state, which its peer's close sets, and its peer's inode.
// What cannot be read this way (another user's pipe, a socket of another
// network namespace or family, a kernel without unix_diag) is said to be
// unknown, never hung up.
package peers
