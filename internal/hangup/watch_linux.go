//go:build linux && !tetherportable

package hangup

import (
	"fmt"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/tetherproc/tether/internal/trace"
)

// Watch has hungUp called once in has no writer and out no reader
// left, by one goroutine blocked in poll(2) beside an eventfd that stop
// writes to. No event is asked for: POLLHUP and POLLERR come
// regardless, and nothing is reported, or read, for data waiting in
// the input. A socket's half-close (the peer's shutdown of its writing
// side) is asked for as POLLRDHUP, which reads nothing either. The
// watch owns in and out and closes them as it ends.
func Watch(in, out int, hungUp func()) (stop func(), err error) {
	wake, err := unix.Eventfd(0, unix.EFD_CLOEXEC)
	if err != nil {
		unix.Close(in)
		unix.Close(out)
		return nil, fmt.Errorf("eventfd: %w", err)
	}
	w := &hangupWatch{fds: []unix.PollFd{
		{Fd: int32(wake), Events: unix.POLLIN},
		{Fd: int32(in), Events: unix.POLLRDHUP},
		{Fd: int32(out)},
	}, open: []int{wake, in, out}}
	go w.run(hungUp)
	return sync.OnceFunc(w.stop), nil
}

// hangupWatch is one watch: the eventfd, then the input and the output.
type hangupWatch struct {
	fds []unix.PollFd
	// The descriptors are closed by the watch as it ends; stop writes
	// to the eventfd only while it is still open.
	mu      sync.Mutex
	stopped bool
	// open are the descriptors to close as the watch ends: an end seen
	// hung up is taken out of the poll (it would report at once from
	// then on) but kept open.
	open []int
}

func (w *hangupWatch) run(hungUp func()) {
	defer func() {
		w.mu.Lock()
		w.stopped = true
		for _, fd := range w.open {
			unix.Close(fd)
		}
		w.mu.Unlock()
	}()
	left := 2
	for left > 0 {
		_, err := unix.Poll(w.fds, -1)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			trace.Printf("end on hang-up: poll: %v: no longer watched", err)
			return
		}
		if w.fds[0].Revents != 0 {
			return // stopped
		}
		for i := 1; i < len(w.fds); i++ {
			switch r := w.fds[i].Revents; {
			case w.fds[i].Fd < 0:
			case r&unix.POLLNVAL != 0:
				trace.Printf("end on hang-up: descriptor %d closed under the watch: no longer watched", w.fds[i].Fd)
				return
			case r&(unix.POLLHUP|unix.POLLERR|unix.POLLRDHUP) != 0:
				w.fds[i].Fd = -1 // poll skips a negative descriptor
				left--
			}
		}
	}
	w.mu.Lock()
	late := w.stopped
	w.mu.Unlock()
	if !late {
		hungUp()
	}
}

// stop wakes the watch, once, while its descriptors are open.
func (w *hangupWatch) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.stopped {
		w.stopped = true
		one := [8]byte{1}
		_, _ = unix.Write(int(w.fds[0].Fd), one[:])
	}
}
