package sigstate

import (
	"os"
	"slices"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// The command waits for HUP, INT and TERM only; the other common
// signals are caught as it starts, the rest later, and a signal the
// caller ignored is caught at none of the three.
func TestSignalsFirstSoonRare(t *testing.T) {
	first, soon, rare := Inherited{Ignored: bit(unix.SIGHUP)}.ToForward()
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
