package watchdog

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// The waiter's machine code is what its source assembles to: go generate
// (./_asm) writes waitercode_linux_amd64.go anew from the source.
func TestWaiterMatchesSource(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("the waiter's source is x86-64")
	}
	for _, tool := range []string{"as", "objcopy"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s (binutils) to assemble the waiter's source", tool)
		}
	}
	dir := t.TempDir()
	obj, bin := filepath.Join(dir, "waiter.o"), filepath.Join(dir, "waiter.bin")
	for _, args := range [][]string{
		{"as", "--64", "-o", obj, "_asm/waiter_linux_amd64.asm"},
		{"objcopy", "-O", "binary", "-j", ".text", obj, bin},
	} {
		if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	code, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(code, waiterCode) {
		t.Errorf("waiterCode (%d bytes) is not what _asm/waiter_linux_amd64.asm assembles to (%d bytes): run go generate ./internal/watchdog/...", len(waiterCode), len(code))
	}
}

// The waiter is deaf to what a terminal sends once it has set itself up
// (its first instructions: the name, then the signals), is named as the
// shell's watchdog, and ends on "d" without running its second stage.
func TestWaiterDone(t *testing.T) {
	wr := startStage(t, waiterStage)
	const deaf = 1<<(unix.SIGHUP-1) | 1<<(unix.SIGINT-1) | 1<<(unix.SIGQUIT-1) | 1<<(unix.SIGPIPE-1) | 1<<(unix.SIGTERM-1)
	deadline := time.Now().Add(10 * time.Second)
	for ignored(t, wr.pid)&deaf != deaf {
		if time.Now().After(deadline) {
			t.Fatalf("the waiter ignores %#x after 10s, want %#x", ignored(t, wr.pid), deaf)
		}
		time.Sleep(time.Millisecond)
	}
	if comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", wr.pid)); err != nil || string(comm) != "tether-watchdog\n" {
		t.Errorf("comm %q, %v; want tether-watchdog", comm, err)
	}
	for _, sig := range []unix.Signal{unix.SIGHUP, unix.SIGINT, unix.SIGQUIT, unix.SIGTERM, unix.SIGPIPE} {
		_ = unix.Kill(wr.pid, sig)
	}
	fmt.Fprint(wr.w, "g 1\ng-\nc /nonexistent\nd\n")
	if ws := wr.wait(t); !ws.Exited() || ws.ExitStatus() != 0 {
		t.Errorf("after d: %v, want exit 0", ws)
	}
	if _, err := os.Stat(wr.args); err == nil {
		t.Error("the second stage ran after d")
	}
}

// The waiter runs from a file in memory that no one can change: sealed,
// and open for reading only.
func TestWaiterSealed(t *testing.T) {
	fd, err := waiterFD()
	if err != nil {
		t.Skipf("no waiter here: %v", err)
	}
	seals, err := unix.FcntlInt(uintptr(fd), unix.F_GET_SEALS, 0)
	if err != nil {
		t.Fatal(err)
	}
	if want := unix.F_SEAL_SEAL | unix.F_SEAL_SHRINK | unix.F_SEAL_GROW | unix.F_SEAL_WRITE; seals&want != want {
		t.Errorf("seals %#x, want %#x", seals, want)
	}
	if _, err := unix.Write(fd, []byte{0}); err == nil {
		t.Error("the waiter's descriptor takes a write")
	}
}

// ignored reads the signals pid ignores (SigIgn of its status file).
func ignored(t *testing.T, pid int) uint64 {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "SigIgn:"); ok {
			n, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			if err != nil {
				t.Fatalf("SigIgn %q: %v", v, err)
			}
			return n
		}
	}
	t.Fatalf("no SigIgn in the status of %d", pid)
	return 0
}
