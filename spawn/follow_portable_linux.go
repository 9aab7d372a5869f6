//go:build linux && tetherportable

package spawn

import (
	"os"
	"sync"
	"time"
)

// watchParent has gone called once ppid is no longer tether's parent,
// by polling: the portable path's stand-in for macOS's kqueue event,
// without the Linux-only pidfd. stop ends the watch.
func watchParent(ppid int, gone func()) (stop func(), err error) {
	if os.Getppid() != ppid {
		return nil, errParentGone
	}
	done := make(chan struct{})
	go func() {
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for os.Getppid() == ppid {
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
		gone()
	}()
	return sync.OnceFunc(func() { close(done) }), nil
}
