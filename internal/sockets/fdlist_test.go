package sockets

import (
	"testing"
)

func TestParseFDList(t *testing.T) {
	// Three struct proc_fdinfo: {proc_fd int32, proc_fdtype uint32}.
	b := fixture(t, "fdlist", "three.bin")
	fds, err := parseFDList(b)
	if err != nil || len(fds) != 3 || fds[1] != (fdEntry{fd: 3, fdType: proxFDTypeSocket}) || fds[2].fd != 10000 {
		t.Errorf("parseFDList = %v, %v", fds, err)
	}
	if _, err := parseFDList(b[:20]); err == nil {
		t.Error("parseFDList of 20 bytes: no error")
	}
}

func FuzzParseFDList(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 1, 0, 0, 0})
	f.Add([]byte{1})
	f.Fuzz(func(t *testing.T, b []byte) {
		fds, err := parseFDList(b)
		if err == nil && len(fds)*8 != len(b) {
			t.Errorf("%d entries from %d bytes", len(fds), len(b))
		}
	})
}
