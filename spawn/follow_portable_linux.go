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

// watchChain has gone called once a process of chain is gone or a link
// of it broken, by polling, as watchParent does.
func watchChain(chain []proc.Member, ppid int, gone func()) (stop func(), err error) {
	if len(chain) == 0 {
		return func() {}, nil
	}
	intact := func() bool { return chainIntact(proc.Host(), ppid, chain) }
	if !intact() {
		return nil, errParentGone
	}
	done := make(chan struct{})
	go func() {
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for intact() {
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
