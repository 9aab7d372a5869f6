package spawn

import (
	"os"
	"os/signal"
	"slices"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// The command waits for HUP, INT and TERM only; the other common
// signals are caught as it starts, the rest later, and a signal the
// caller ignored is caught at none of the three.
func TestSignalsFirstSoonRare(t *testing.T) {
	first, soon, rare := inherited{ignored: bit(unix.SIGHUP)}.toForward()
	if want := []os.Signal{unix.SIGINT, unix.SIGTERM}; !slices.Equal(first, want) {
		t.Errorf("first %v, want %v", first, want)
	}
	for _, s := range []os.Signal{unix.SIGUSR1, unix.SIGWINCH, unix.SIGQUIT} {
		if !slices.Contains(soon, s) {
			t.Errorf("soon %v lacks %v", soon, s)
		}
	}
	if !slices.Contains(rare, os.Signal(syscall.Signal(39))) {
		t.Errorf("rare %v lacks signal 39 (SIGRTMIN+5)", rare)
	}
	for _, s := range []os.Signal{unix.SIGHUP, unix.SIGCHLD} {
		if slices.Contains(first, s) || slices.Contains(soon, s) || slices.Contains(rare, s) {
			t.Errorf("%v is caught, want it left alone", s)
		}
	}
}

// Once SIGCHLD is registered, one is put on the channel, so that a
// command that exited before it was caught is reaped at once rather than
// at the next tick; a stopped registration registers nothing.
func TestRegisterPutsSIGCHLD(t *testing.T) {
	c := make(chan os.Signal, 4)
	defer signal.Stop(c)
	var l lateSignals
	if !l.register(c, []os.Signal{syscall.SIGCHLD}) {
		t.Fatal("register: stopped, want registered")
	}
	select {
	case s := <-c:
		if s != syscall.SIGCHLD {
			t.Errorf("got %v, want SIGCHLD", s)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no SIGCHLD on the channel once it was registered")
	}
	l.stop()
	if l.register(c, []os.Signal{syscall.SIGCHLD}) {
		t.Error("register after stop: registered, want nothing")
	}
	if len(c) != 0 {
		t.Errorf("register after stop put %d signals on the channel", len(c))
	}
}
