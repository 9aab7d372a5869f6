// Package sockets says who holds a port: the sockets that serve it (a
// listening TCP socket, a bound and unconnected UDP one, IPv4 or IPv6)
// and the processes whose descriptors hold them.
//
// It is its own package because the answer comes from a different place
// on every system, and none of them is simple: on Linux a sock_diag
// netlink dump of the listening sockets (the /proc/net tables where
// netlink is refused), whose inodes are traced to their holders through
// every process's fd table; on macOS, which has no table of sockets,
// every process's descriptors read through libSystem's libproc (called
// without cgo, through the trampolines of libproc_darwin_*.s), and lsof's
// field output where libproc is refused. Finding and ending processes
// (package reclaim) and waiting for a server (package readiness) both ask
// it, and neither needs to know how it is answered.
//
// The readers of sockets that go through /proc live here too, not in
// internal/proc: the /proc/net tables (NetTable), a process's fd table
// (Files, SocketHolders, the flags of fdinfo) and the addresses of the
// interfaces (ParseFibTrie, ParseIfInet6). They answer questions about
// sockets and the pipes beside them, and are asked by the callers that
// ask about sockets; what is read of a process itself stays with
// internal/proc, whose FS they read through.
//
// Its parsers (an inet_diag_msg, the /proc/net tables, fdinfo, the
// interface addresses, libproc's answers, lsof's fields) are pure
// functions over bytes, in files with no build constraint where the
// bytes are the same everywhere, tested against the fixtures of
// testdata/ on every system.
//
// Limits: sockets are looked up in the caller's network namespace only;
// a socket whose holder's descriptors cannot be read (another user's,
// when the caller is not root) is found without its holder. On other
// systems nothing is found, and Listeners says so.
package sockets
