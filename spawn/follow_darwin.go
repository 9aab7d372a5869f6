//go:build darwin

package spawn

import (
	"os"

	"golang.org/x/sys/unix"
)

// watchParent has gone called once ppid exits, by a kqueue event
// (EVFILT_PROC, NOTE_EXIT); a parent that died before the event was
// registered is errParentGone.
func watchParent(ppid int, gone func()) error {
	kq, err := unix.Kqueue()
	if err != nil {
		return err
	}
	ev := unix.Kevent_t{Ident: uint64(ppid), Filter: unix.EVFILT_PROC, Flags: unix.EV_ADD | unix.EV_ONESHOT, Fflags: unix.NOTE_EXIT}
	if _, err := unix.Kevent(kq, []unix.Kevent_t{ev}, nil, nil); err != nil || os.Getppid() != ppid {
		unix.Close(kq)
		return errParentGone
	}
	go func() {
		defer unix.Close(kq)
		out := make([]unix.Kevent_t, 1)
		for {
			n, err := unix.Kevent(kq, nil, out, nil)
			if err == unix.EINTR {
				continue
			}
			if n > 0 || err != nil {
				gone()
				return
			}
		}
	}()
	return nil
}
