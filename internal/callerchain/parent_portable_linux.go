//go:build linux && tetherportable

package callerchain

import (
	"os"

	"github.com/tetherproc/tether/procid"
)

// WatchParent has gone called once ppid is no longer tether's parent: an
// exit event through its pidfd (watchChain), the portable path's
// stand-in for macOS's kqueue event. The parent is read again once it is
// watched: one that died first is ErrGone. stop ends the watch.
func WatchParent(ppid int, gone func()) (stop func(), err error) {
	stop, err = watchChain([]procid.ID{{PID: ppid}}, ppid, gone)
	if err == nil && os.Getppid() != ppid {
		stop()
		return nil, ErrGone
	}
	return stop, err
}
