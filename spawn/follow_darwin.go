//go:build darwin

package spawn

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// watchParent has gone called once ppid exits, by a kqueue event
// (EVFILT_PROC, NOTE_EXIT); a parent that died before the event was
// registered is errParentGone.
func watchParent(ppid int, gone func()) error {
	kq, err := unix.Kqueue()
	if err != nil {
		return fmt.Errorf("follow parent %d: kqueue: %w", ppid, err)
	}
	ev := unix.Kevent_t{Ident: uint64(ppid), Filter: unix.EVFILT_PROC, Flags: unix.EV_ADD | unix.EV_ONESHOT, Fflags: unix.NOTE_EXIT}
	_, err = unix.Kevent(kq, []unix.Kevent_t{ev}, nil, nil)
	switch {
	case err == unix.ESRCH || err == nil && os.Getppid() != ppid:
		unix.Close(kq)
		return errParentGone
	case err != nil:
		unix.Close(kq)
		return fmt.Errorf("follow parent %d: kevent: %w", ppid, err)
	}
	go func() {
		defer unix.Close(kq)
		out := make([]unix.Kevent_t, 1)
		for {
			n, err := unix.Kevent(kq, nil, out, nil)
			if err == unix.EINTR {
				continue
			}
			if err != nil {
				return // no event will come: the parent is not followed
			}
			if n > 0 {
				gone()
				return
			}
		}
	}()
	return nil
}
