package proc

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// TestReadShown reads files the kernel renders in one piece, each as
// long as the whole read to its end: a short read ends them. A buffer
// smaller than the file takes the reads that fill it, then one more.
func TestReadShown(t *testing.T) {
	for _, path := range []string{"/proc/self/limits", "/proc/self/cgroup"} {
		want, err := ReadPlain(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, size := range []int{16, 64, 2048} {
			got, err := readShown(path, make([]byte, 0, size))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("readShown(%s) with %d bytes to start = %q, want %q", path, size, got, want)
			}
		}
	}
	data, err := ReadShown("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	if st, err := ParseStatus(data); err != nil || st.TGID != os.Getpid() || !bytes.Contains(data, []byte("\nSigCgt:")) {
		t.Errorf("ReadShown(/proc/self/status) = %q, %v", data, err)
	}
	data, err = ReadShown("/proc/uptime")
	if err != nil || len(strings.Fields(string(data))) != 2 {
		t.Errorf("ReadShown(/proc/uptime) = %q, %v; want two figures", data, err)
	}
	if _, err := ReadShown("/proc/self/no-such-file"); !os.IsNotExist(err) {
		t.Errorf("ReadShown of a missing file: %v, want it not to exist", err)
	}
}
