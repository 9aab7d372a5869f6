package pollstop

import (
	"testing"

	"golang.org/x/sys/unix"
)

// A stop reads as ready in poll once called, and the end reports it; a
// stop after the end writes nothing (its eventfd is closed by then).
func TestStop(t *testing.T) {
	s, err := New()
	if err != nil {
		t.Fatal(err)
	}
	fds := []unix.PollFd{s.PollFd()}
	if n, err := unix.Poll(fds, 0); err != nil || n != 0 {
		t.Fatalf("before Stop: poll %d, %v; want nothing ready", n, err)
	}
	s.Stop()
	if n, err := unix.Poll(fds, 1000); err != nil || n != 1 || fds[0].Revents&unix.POLLIN == 0 {
		t.Fatalf("after Stop: poll %d, %v, revents %#x; want it ready", n, err, fds[0].Revents)
	}
	closed := false
	if !s.End(func() { closed = true }) || !closed {
		t.Fatalf("End after Stop: want stopped reported and the rest closed")
	}

	s, err = New()
	if err != nil {
		t.Fatal(err)
	}
	if s.End(func() {}) {
		t.Fatal("End with no Stop: reported stopped")
	}
	s.Stop() // after the end: no write to a closed descriptor
	if !s.End(func() { t.Error("a second End closed the rest again") }) {
		t.Fatal("a second End: want it seen as done")
	}
}
