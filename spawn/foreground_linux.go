package spawn

import (
	"runtime"

	"golang.org/x/sys/unix"
)

// setForeground gives the terminal to group pgid with SIGTTOU blocked on
// this thread, as shells do: caught, it would have the call restarted
// again and again from the background.
func (r *run) setForeground(pgid int) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var set, old unix.Sigset_t
	addSignal(&set, unix.SIGTTOU)
	_ = unix.PthreadSigmask(unix.SIG_BLOCK, &set, &old)
	_ = unix.IoctlSetPointerInt(r.term.fd, unix.TIOCSPGRP, pgid)
	_ = unix.PthreadSigmask(unix.SIG_SETMASK, &old, nil)
}
