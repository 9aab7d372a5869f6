package spawn

import (
	"os/signal"

	"golang.org/x/sys/unix"
)

// setForeground gives the terminal to group pgid with SIGTTOU ignored
// for the moment, as shells do: caught, it would have the call restarted
// again and again from the background. (macOS has no per-thread signal
// mask in reach without cgo; the ignore is the process's, and brief.)
func (r *run) setForeground(pgid int) {
	signal.Ignore(unix.SIGTTOU)
	_ = unix.IoctlSetPointerInt(r.term.fd, unix.TIOCSPGRP, pgid)
	signal.Notify(r.sigs, unix.SIGTTOU)
}
