//go:build linux && tetherportable

package spawn

import (
	"os"
	"time"
)

// watchParent has gone called once ppid is no longer tether's parent,
// by polling: the portable path's stand-in for macOS's kqueue event,
// without the Linux-only pidfd.
func watchParent(ppid int, gone func()) error {
	if os.Getppid() != ppid {
		return errParentGone
	}
	go func() {
		for os.Getppid() == ppid {
			time.Sleep(20 * time.Millisecond)
		}
		gone()
	}()
	return nil
}
