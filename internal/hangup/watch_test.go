//go:build linux || darwin

package hangup_test

import (
	"os"
	"testing"
	"time"

	"github.com/tetherproc/tether/internal/hangup"
)

// pipes are a command's input and output as a client holds them: the
// client writes inW and reads outR.
func pipes(t *testing.T) (in, inW, outR, out *os.File) {
	t.Helper()
	in, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, out, err = os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, f := range []*os.File{in, inW, outR, out} {
			f.Close()
		}
	})
	return in, inW, outR, out
}

func watch(t *testing.T, in, out *os.File) (<-chan struct{}, func()) {
	t.Helper()
	var fds [2]int
	for i, f := range []*os.File{in, out} {
		fd, err := hangup.Dup(f)
		if err != nil {
			t.Fatal(err)
		}
		if kind, ok := hangup.CanHangUp(fd); !ok || kind != "a pipe" {
			t.Fatalf("CanHangUp of a pipe: %q, %v", kind, ok)
		}
		fds[i] = fd
	}
	hung := make(chan struct{})
	stop, err := hangup.Watch(fds[0], fds[1], func() { close(hung) })
	if err != nil {
		t.Fatal(err)
	}
	return hung, stop
}

// Both ends must hang up: the input's closing alone is the usual end of
// a stdio server's session, not a hang-up.
func TestWatchBothEnds(t *testing.T) {
	in, inW, outR, out := pipes(t)
	hung, stop := watch(t, in, out)
	defer stop()
	inW.Close()
	select {
	case <-hung:
		t.Fatal("hung up with the output still read")
	case <-time.After(600 * time.Millisecond):
	}
	outR.Close()
	select {
	case <-hung:
	case <-time.After(5 * time.Second):
		t.Fatal("no hang-up seen")
	}
}

// A watch stopped first says nothing, whatever comes after.
func TestWatchStopped(t *testing.T) {
	in, inW, outR, out := pipes(t)
	hung, stop := watch(t, in, out)
	stop()
	stop()
	inW.Close()
	outR.Close()
	select {
	case <-hung:
		t.Fatal("hang-up reported after stop")
	case <-time.After(600 * time.Millisecond):
	}
}

func TestCanHangUpFile(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "f")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if kind, ok := hangup.CanHangUp(int(f.Fd())); ok || kind != "a file" {
		t.Errorf("CanHangUp of a file: %q, %v", kind, ok)
	}
	if _, err := hangup.Dup(nil); err == nil {
		t.Error("Dup(nil): no error")
	}
}
