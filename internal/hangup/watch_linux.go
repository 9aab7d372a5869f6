//go:build linux && !tetherportable

package hangup

import (
	"golang.org/x/sys/unix"

	"github.com/tetherproc/tether/internal/pollstop"
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
	st, err := pollstop.New()
	if err != nil {
		unix.Close(in)
		unix.Close(out)
		return nil, err
	}
	w := &hangupWatch{stop: st, fds: []unix.PollFd{
		st.PollFd(),
		{Fd: int32(in), Events: unix.POLLRDHUP},
		{Fd: int32(out)},
	}, open: []int{in, out}}
	go w.run(hungUp)
	return st.Stop, nil
}

// hangupWatch is one watch: its stop, then the input and the output.
type hangupWatch struct {
	stop *pollstop.Stop
	fds  []unix.PollFd
	// open are the descriptors to close as the watch ends: an end seen
	// hung up is taken out of the poll (it would report at once from
	// then on) but kept open.
	open []int
}

func (w *hangupWatch) run(hungUp func()) {
	// What is seen as the watch is stopped is not reported.
	if hung := w.hangUp(); !w.stop.End(w.closeEnds) && hung {
		hungUp()
	}
}

func (w *hangupWatch) closeEnds() {
	for _, fd := range w.open {
		unix.Close(fd)
	}
}

// hangUp waits until both ends have hung up (true), or the watch is
// stopped or can go on no longer (false).
func (w *hangupWatch) hangUp() bool {
	left := 2
	for left > 0 {
		_, err := unix.Poll(w.fds, -1)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			trace.Printf("end on hang-up: poll: %v: no longer watched", err)
			return false
		}
		if w.fds[0].Revents != 0 {
			return false // stopped
		}
		for i := 1; i < len(w.fds); i++ {
			switch r := w.fds[i].Revents; {
			case w.fds[i].Fd < 0:
			case r&unix.POLLNVAL != 0:
				trace.Printf("end on hang-up: descriptor %d closed under the watch: no longer watched", w.fds[i].Fd)
				return false
			case r&(unix.POLLHUP|unix.POLLERR|unix.POLLRDHUP) != 0:
				w.fds[i].Fd = -1 // poll skips a negative descriptor
				left--
			}
		}
	}
	return true
}
