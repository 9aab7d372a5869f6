package sigstate

import (
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

// These run only on a Mac: the call into libSystem itself. The thread's
// mask is read, changed and put back, and ReadInherited reports what
// was blocked on it.
func TestThreadSigmask(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var before uint32
	if err := threadSigmask(sigBlock, nil, &before); err != nil {
		t.Fatalf("read the mask: %v", err)
	}
	usr1 := uint32(bit(unix.SIGUSR1))
	var old uint32
	if err := threadSigmask(sigBlock, &usr1, &old); err != nil || old != before {
		t.Fatalf("block USR1: old mask %#x, %v; want %#x", old, err, before)
	}
	defer func() { _ = threadSigmask(sigSetmask, &before, nil) }()
	var now uint32
	if err := threadSigmask(sigBlock, nil, &now); err != nil || now != before|usr1 {
		t.Errorf("mask with USR1 blocked: %#x, %v; want %#x", now, err, before|usr1)
	}
	in, err := ReadInherited()
	if err != nil || in.Blocked&uint64(usr1) == 0 {
		t.Errorf("ReadInherited: blocked %#x, %v; want USR1 among them", in.Blocked, err)
	}
	if err := threadSigmask(sigSetmask, &before, nil); err != nil {
		t.Fatal(err)
	}
	if err := threadSigmask(sigBlock, nil, &now); err != nil || now != before {
		t.Errorf("mask put back: %#x, %v; want %#x", now, err, before)
	}
	// A bad how is refused with its error number, not taken for -1.
	if err := threadSigmask(99, &usr1, nil); err != unix.EINVAL {
		t.Errorf("pthread_sigmask(99) = %v; want EINVAL", err)
	}
}
