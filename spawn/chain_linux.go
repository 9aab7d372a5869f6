package spawn

import (
	"fmt"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/tetherproc/tether/internal/proc"
)

// watchChain has gone called once any process of chain exits, each
// watched through a pidfd, all of them by one goroutine blocked in
// poll(2) (a pidfd reads as ready once its process has exited), beside
// an eventfd that stop writes to. On the portable path too (the
// tetherportable tag), as the stand-in for macOS's kqueue exit events:
// an event, not a poll. A process already gone, or a link of
// the chain broken before every watch was set up, is errParentGone.
func watchChain(chain []proc.Member, ppid int, gone func()) (stop func(), err error) {
	if len(chain) == 0 {
		return func() {}, nil
	}
	wake, err := unix.Eventfd(0, unix.EFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("follow the caller's chain: eventfd: %w", err)
	}
	fds := []unix.PollFd{{Fd: int32(wake), Events: unix.POLLIN}}
	closeAll := func() {
		for _, p := range fds {
			unix.Close(int(p.Fd))
		}
	}
	for _, m := range chain {
		fd, err := unix.PidfdOpen(m.PID, 0)
		if err == unix.ESRCH {
			closeAll()
			return nil, errParentGone
		} else if err != nil {
			closeAll()
			return nil, fmt.Errorf("follow ancestor %d: pidfd_open: %w", m.PID, err)
		}
		fds = append(fds, unix.PollFd{Fd: int32(fd), Events: unix.POLLIN})
	}
	// The pidfds are open: from now on no ancestor's death goes unseen,
	// and one that came before the pidfd_open shows too, with no second
	// read of the chain: a zombie's pidfd reads as ready at once, a
	// reaped one's PID is ESRCH, and for its PID to name another
	// process already the PID space would have had to wrap around in
	// between.
	// The descriptors are closed by the watch as it ends; stop, which
	// does not wait for that, writes to the eventfd only while it is
	// still open (its number could be another file's after).
	var mu sync.Mutex
	stopped := false
	go func() {
		defer func() {
			mu.Lock()
			stopped = true
			closeAll()
			mu.Unlock()
		}()
		for {
			_, err := unix.Poll(fds, -1)
			if err == unix.EINTR {
				continue
			}
			if err != nil || fds[0].Revents != 0 {
				return // stopped, or no watch possible
			}
			for _, p := range fds[1:] {
				if p.Revents != 0 {
					mu.Lock()
					late := stopped
					mu.Unlock()
					if !late {
						gone()
					}
					return
				}
			}
		}
	}()
	// stop does not wait for the watch to end: it closes its own
	// descriptors once woken.
	return sync.OnceFunc(func() {
		mu.Lock()
		defer mu.Unlock()
		if !stopped {
			stopped = true
			one := [8]byte{1}
			_, _ = unix.Write(wake, one[:])
		}
	}), nil
}
