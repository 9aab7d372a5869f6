//go:build linux && tetherportable

package spawn

import (
	"os"

	"github.com/tetherproc/tether/procid"
)

// watchParent has gone called once ppid is no longer tether's parent: an
// exit event through its pidfd (watchChain), the portable path's
// stand-in for macOS's kqueue event. The parent is read again once it is
// watched: one that died first is errParentGone. stop ends the watch.
func watchParent(ppid int, gone func()) (stop func(), err error) {
	stop, err = watchChain([]procid.ID{{PID: ppid}}, ppid, gone)
	if err == nil && os.Getppid() != ppid {
		stop()
		return nil, errParentGone
	}
	return stop, err
}
