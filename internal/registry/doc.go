// Package registry keeps one small record per run in a per-user runtime
// directory, so that a run's processes are known by a ground that
// survives a rename: a server that writes its title over its
// environment (nginx, redis, PostgreSQL's backends, setproctitle) loses
// its markers, but its PID and start time, written down by its
// supervisor, still say whose it is.
//
// The records are trusted no further than their owner: a directory or
// record that is not the user's own, not 0700 (0600 for a record), or a
// symlink is refused, and a record names only processes of its owner's
// real uid (root's, in a directory only root can write, any uid). So a
// record can never make tether signal a process its writer could not
// have signalled itself.
package registry
