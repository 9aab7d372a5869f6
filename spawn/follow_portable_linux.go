//go:build linux && tetherportable

package spawn

import (
	"os"
	"sync"
	"time"

	"github.com/tetherproc/tether/internal/proc"
)

// watchParent has gone called once ppid is no longer tether's parent,
// by polling: the portable path's stand-in for macOS's kqueue event,
// without the Linux-only pidfd. stop ends the watch.
func watchParent(ppid int, gone func()) (stop func(), err error) {
	return poll(20*time.Millisecond, func() bool { return os.Getppid() == ppid }, gone)
}

// watchChain has gone called once a process of chain is gone or a link
// of it broken, by polling, as watchParent does.
func watchChain(chain []proc.Member, ppid int, gone func()) (stop func(), err error) {
	if len(chain) == 0 {
		return func() {}, nil
	}
	return poll(100*time.Millisecond, func() bool { return chainIntact(proc.Host(), ppid, chain) }, gone)
}

// poll asks ok every period and has gone called once it says false; one
// false at once is errParentGone. stop ends the watch.
func poll(period time.Duration, ok func() bool, gone func()) (stop func(), err error) {
	if !ok() {
		return nil, errParentGone
	}
	done := make(chan struct{})
	go func() {
		tick := time.NewTicker(period)
		defer tick.Stop()
		for ok() {
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
