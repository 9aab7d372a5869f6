package spawn

import (
	"os"
	"os/signal"
	"syscall"
	"testing"
	"time"
)

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
