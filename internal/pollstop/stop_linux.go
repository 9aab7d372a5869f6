//go:build linux

package pollstop

import (
	"fmt"
	"sync"

	"golang.org/x/sys/unix"
)

// Stop is one watch's stop: its eventfd, and whether the watch has been
// stopped or has ended.
type Stop struct {
	fd   int
	mu   sync.Mutex
	done bool // stopped, or ended
	// ended: the descriptors are closed, and their numbers may be
	// other files' now.
	ended bool
}

// New opens the eventfd of a watch's stop.
func New() (*Stop, error) {
	fd, err := unix.Eventfd(0, unix.EFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("eventfd: %w", err)
	}
	return &Stop{fd: fd}, nil
}

// PollFd is the entry to poll beside the watched descriptors: it reads
// as ready once Stop was called.
func (s *Stop) PollFd() unix.PollFd { return unix.PollFd{Fd: int32(s.fd), Events: unix.POLLIN} }

// Stop wakes the watch, once, while its eventfd is open.
func (s *Stop) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.done {
		s.done = true
		one := [8]byte{1}
		_, _ = unix.Write(s.fd, one[:])
	}
}

// End ends the watch: closeRest closes its other descriptors, then the
// eventfd is closed, all before a Stop can write to it. It reports
// whether Stop came first, when what the watch saw is no longer to be
// reported. Only the first End closes anything.
func (s *Stop) End(closeRest func()) (stopped bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	stopped = s.done
	s.done = true
	if !s.ended {
		s.ended = true
		closeRest()
		unix.Close(s.fd)
	}
	return stopped
}
