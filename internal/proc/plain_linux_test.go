package proc

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
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

// TestReadEnds reads a children list by its short records, against a
// read to the end: the same list, whatever the buffer.
func TestReadEnds(t *testing.T) {
	sh := exec.Command("/bin/sh", "-c", "for i in 1 2 3 4 5 6 7 8 9 10 11 12; do sleep 60 & done; wait")
	sh.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := sh.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// The shell and its sleeps: the group the test started.
		_ = syscall.Kill(-sh.Process.Pid, syscall.SIGKILL)
		_ = sh.Wait()
	})
	path := fmt.Sprintf("/proc/%d/task/%d/children", sh.Process.Pid, sh.Process.Pid)
	var want []byte
	for deadline := time.Now().Add(10 * time.Second); len(bytes.Fields(want)) < 12; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the shell's children: %q, want 12", want)
		}
		want, _ = ReadInto(path, nil)
	}
	for _, size := range []int{8, 16, 4096} {
		got, err := readFile(path, make([]byte, 0, size), shortRecords)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("children list read by short records, %d bytes to start: %q, %v; want %q", size, got, err, want)
		}
	}
}
