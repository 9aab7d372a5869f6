//go:build darwin || (linux && tetherportable)

package hangup

import (
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// hangupPoll is how often the portable path looks at the input and the
// output: a client's hang-up is seen within it.
const hangupPoll = 250 * time.Millisecond

// Watch has hungUp called once in has no writer and out no reader
// left, looking every hangupPoll. macOS's poll(2) is built on kqueue:
// a descriptor with no event asked for is never reported, and a blocking
// poll of several can wait for good on an event it took and dropped, so
// each end is looked at alone, without waiting, asked for POLLIN or
// POLLOUT, of which only the hang-up is read (EV_EOF, reported as
// POLLHUP, a socket's half-close included; Linux's POLLHUP, POLLERR
// and, for the half-close, POLLRDHUP). Nothing is read. The
// watch owns in and out and closes them as it ends.
func Watch(in, out int, hungUp func()) (stop func(), err error) {
	quit := make(chan struct{})
	go func() {
		defer unix.Close(in)
		defer unix.Close(out)
		tick := time.NewTicker(hangupPoll)
		defer tick.Stop()
		ends := []unix.PollFd{{Fd: int32(in), Events: unix.POLLIN | pollRDHUP}, {Fd: int32(out), Events: unix.POLLOUT}}
		for len(ends) > 0 {
			select {
			case <-quit:
				return
			case <-tick.C:
			}
			ends = stillUp(ends)
		}
		select {
		case <-quit: // stopped meanwhile
		default:
			hungUp()
		}
	}()
	return sync.OnceFunc(func() { close(quit) }), nil
}

// stillUp is the ends of ends that have not hung up.
func stillUp(ends []unix.PollFd) []unix.PollFd {
	var up []unix.PollFd
	for _, e := range ends {
		one := []unix.PollFd{e}
		if _, err := unix.Poll(one, 0); err == nil && one[0].Revents&(unix.POLLHUP|unix.POLLERR|pollRDHUP) != 0 {
			continue
		}
		up = append(up, e)
	}
	return up
}
