package spawn

import (
	"bytes"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// The waiter's machine code is what its source assembles to. With
// TETHER_UPDATE_WAITER=1 the test writes waiter_linux_amd64.go anew
// from the source, with the listing as comments.
func TestWaiterMatchesSource(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("the waiter's source is x86-64")
	}
	for _, tool := range []string{"as", "objcopy", "objdump"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s (binutils) to assemble the waiter's source", tool)
		}
	}
	dir := t.TempDir()
	obj, bin := filepath.Join(dir, "waiter.o"), filepath.Join(dir, "waiter.bin")
	for _, args := range [][]string{
		{"as", "--64", "-o", obj, "testdata/waiter_linux_amd64.s"},
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
	if os.Getenv("TETHER_UPDATE_WAITER") != "" {
		listing, err := exec.Command("objdump", "-d", "-w", "-M", "intel", obj).Output()
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile("waiter_linux_amd64.go", waiterSource(t, listing, code), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(code, waiterCode) {
		t.Errorf("waiterCode (%d bytes) is not what testdata/waiter_linux_amd64.s assembles to (%d bytes): run TETHER_UPDATE_WAITER=1 go test -run TestWaiterMatchesSource ./spawn", len(waiterCode), len(code))
	}
}

// waiterSource writes waiter_linux_amd64.go: code, one instruction a
// line as objdump lists it, up to the label name, where the strings the
// code uses begin.
func waiterSource(t *testing.T, listing, code []byte) []byte {
	label := regexp.MustCompile(`^[0-9a-f]+ <(\w+)>:$`)
	insn := regexp.MustCompile(`^\s+([0-9a-f]+):\t((?:[0-9a-f]{2} )+)\s*\t([^#<]*)`)
	var b strings.Builder
	b.WriteString(`//go:build linux && amd64

package spawn

// waiterMachine is the ELF machine of waiterCode: EM_X86_64.
const waiterMachine = 62

// waiterCode is the watchdog's waiting half as x86-64 machine code: the
// program testdata/waiter_linux_amd64.s, as GNU as assembles it (which
// TestWaiterMatchesSource checks where binutils are installed).
var waiterCode = []byte{
`)
	end := 0
	for _, line := range strings.Split(string(listing), "\n") {
		if m := label.FindStringSubmatch(line); m != nil {
			if m[1] == "name" {
				break
			}
			fmt.Fprintf(&b, "\t// %s:\n", m[1])
			continue
		}
		m := insn.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		var off int
		fmt.Sscanf(m[1], "%x", &off)
		hex := strings.Fields(m[2])
		for i, h := range hex {
			hex[i] = "0x" + h
		}
		text := strings.Join(strings.Fields(strings.NewReplacer("QWORD PTR", "qword ptr", "BYTE PTR", "byte ptr").Replace(m[3])), " ")
		fmt.Fprintf(&b, "\t%s, // %s\n", strings.Join(hex, ", "), text)
		end = off + len(hex)
	}
	if end == 0 || end > len(code) {
		t.Fatalf("the listing ends at %d of %d bytes", end, len(code))
	}
	b.WriteString("\t// name, cgroup_kill, one:\n\t")
	for i, c := range code[end:] {
		if i > 0 {
			b.WriteString(", ")
		}
		if c >= ' ' && c < 0x7f && c != '\'' && c != '\\' {
			fmt.Fprintf(&b, "'%c'", c)
		} else {
			fmt.Fprintf(&b, "0x%02x", c)
		}
	}
	b.WriteString(",\n}\n")
	return []byte(b.String())
}

// waiterRun is a waiter started by hand: the write end of its pipe, and
// the file its stage two (a shell script) writes its arguments to.
type waiterRun struct {
	pid  int
	w    *os.File
	args string
}

func startWaiter(t *testing.T) *waiterRun {
	t.Helper()
	fd, err := waiterFD()
	if err != nil {
		t.Skipf("no waiter here: %v", err)
	}
	dir := t.TempDir()
	wr := &waiterRun{args: filepath.Join(dir, "args")}
	stage2 := filepath.Join(dir, "stage2")
	script := "#!/bin/sh\nprintf '%s\\n' \"$0\" \"$@\" >" + wr.args + ".tmp && mv " + wr.args + ".tmp " + wr.args + "\n"
	if err := os.WriteFile(stage2, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	r, w, err := pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(r)
	wr.w = w
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	n := null.Fd()
	// In a session of its own, as the supervisor starts it.
	wr.pid, err = syscall.ForkExec("/proc/self/fd/6", []string{WatchdogArg, stage2, "one", "two", ""}, &syscall.ProcAttr{
		Files: []uintptr{n, n, os.Stderr.Fd(), uintptr(r), n, n, uintptr(fd)},
		Sys:   &syscall.SysProcAttr{Setsid: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		w.Close()
		_ = unix.Kill(wr.pid, unix.SIGKILL)
		var ws unix.WaitStatus
		_, _ = unix.Wait4(wr.pid, &ws, 0, nil)
	})
	return wr
}

// wait reaps the waiter, or fails after a generous deadline.
func (wr *waiterRun) wait(t *testing.T) unix.WaitStatus {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		var ws unix.WaitStatus
		if pid, err := unix.Wait4(wr.pid, &ws, unix.WNOHANG, nil); err == nil && pid == wr.pid {
			return ws
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("waiter %d still running after 10s", wr.pid)
	return 0
}

// stage2Args waits for stage two's arguments, one a line.
func (wr *waiterRun) stage2Args(t *testing.T) []string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if data, err := os.ReadFile(wr.args); err == nil {
			return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatal("stage two never ran")
	return nil
}

// group starts sleep in a process group of its own and returns its PID
// and a channel that gets its wait status.
func group(t *testing.T) (int, <-chan syscall.WaitStatus) {
	t.Helper()
	cmd := exec.Command("sleep", "60")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := make(chan syscall.WaitStatus, 1)
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		c <- cmd.ProcessState.Sys().(syscall.WaitStatus)
		close(done)
	}()
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-done })
	return cmd.Process.Pid, c
}

func TestWaiterDone(t *testing.T) {
	wr := startWaiter(t)
	// Deaf to what a terminal sends, once it has set itself up (its
	// first instructions: the name, then the signals), and named as the
	// shell's watchdog.
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
		t.Error("stage two ran after d")
	}
}

func TestWaiterSupervisorDies(t *testing.T) {
	pgid, status := group(t)
	kill := filepath.Join(t.TempDir(), "cg")
	if err := os.Mkdir(kill, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(kill, "cgroup.kill"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	wr := startWaiter(t)
	// Noise first: lines it must skip, a bad number, an unknown word.
	fmt.Fprintf(wr.w, "\nxyz\ng 12x4\ng %d\nc %s\n", pgid, kill)
	wr.w.Close()
	if got, want := wr.stage2Args(t), []string{"one", "two", kill}; !equalTail(got, want) {
		t.Errorf("stage two got %q, want its path, then %q", got, want)
	}
	wantTERM(t, "the group's sleep", status)
	if data, err := os.ReadFile(filepath.Join(kill, "cgroup.kill")); err != nil || string(data) != "1" {
		t.Errorf("cgroup.kill holds %q, %v; want 1", data, err)
	}
}

func TestWaiterGroupGone(t *testing.T) {
	pgid, status := group(t)
	wr := startWaiter(t)
	fmt.Fprintf(wr.w, "g %d\ng-\n", pgid)
	wr.w.Close()
	if got, want := wr.stage2Args(t), []string{"one", "two", ""}; !equalTail(got, want) {
		t.Errorf("stage two got %q, want its path, then %q", got, want)
	}
	select {
	case ws := <-status:
		t.Errorf("the group's sleep ended (%v) after g-: the waiter signalled a group it was told is gone", ws)
	case <-time.After(200 * time.Millisecond):
	}
}

// A line counts only whole, and one the waiter cannot read leaves what
// came before in place. The group a bad line would name, were it taken,
// is one of the test's own (B): the failure is a signal to it, never to
// anything else.
func TestWaiterWholeLines(t *testing.T) {
	dir1 := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir1, "cgroup.kill"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, input string // A and B stand for the two groups' PIDs, D for dir1
		wantDir     string
	}{
		{"group past 2^31 wraps to B", "g A\nc D\ng 4294967296+B\n", "D"},
		{"group past 2^64 wraps to B", "g A\nc D\ng 18446744073709551616+B\n", "D"},
		{"g- followed by more", "g A\ng-x\n", ""},
		{"g- cut short", "g A\ng-", ""},
		{"group cut short", "g A\ng B", ""},
		{"directory cut short", "g A\nc D\nc /elsewhere", "D"},
		{"directory of PATH_MAX", "g A\nc D\nc /" + strings.Repeat("x", 4095) + "\n", "D"},
		{"unknown words and spaces", "g A\n d\nd \ndone\ng  B\nx\n\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, aStatus := group(t)
			b, bStatus := group(t)
			input := strings.NewReplacer("A", strconv.Itoa(a), "D", dir1).Replace(tc.input)
			input = wrapped(t, input, b)
			if err := os.WriteFile(filepath.Join(dir1, "cgroup.kill"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			wr := startWaiter(t)
			fmt.Fprint(wr.w, input)
			wr.w.Close()
			wantDir := strings.ReplaceAll(tc.wantDir, "D", dir1)
			if got := wr.stage2Args(t); !equalTail(got, []string{"one", "two", wantDir}) {
				t.Errorf("stage two got %q, want its path, then one, two, %q", got, wantDir)
			}
			wantTERM(t, "group A", aStatus)
			select {
			case ws := <-bStatus:
				t.Errorf("group B ended (%v): the waiter took a line it should have skipped", ws)
			case <-time.After(100 * time.Millisecond):
			}
			data, _ := os.ReadFile(filepath.Join(dir1, "cgroup.kill"))
			if want := map[bool]string{true: "1", false: ""}[wantDir != ""]; string(data) != want {
				t.Errorf("cgroup.kill holds %q, want %q", data, want)
			}
		})
	}
}

// wrapped replaces "N+B" in input by the decimal N + b, a number that
// truncated to 32 bits is b.
func wrapped(t *testing.T, input string, b int) string {
	for _, n := range []string{"4294967296", "18446744073709551616"} {
		big, ok := new(big.Int).SetString(n, 10)
		if !ok {
			t.Fatal(n)
		}
		input = strings.ReplaceAll(input, n+"+B", big.Add(big, stdbig(b)).String())
	}
	return strings.ReplaceAll(input, "B", strconv.Itoa(b))
}

func stdbig(n int) *big.Int { return big.NewInt(int64(n)) }

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

// wantTERM fails t unless what, a group's sleep, dies of TERM within a
// generous deadline.
func wantTERM(t *testing.T, what string, status <-chan syscall.WaitStatus) {
	t.Helper()
	select {
	case ws := <-status:
		if !ws.Signaled() || ws.Signal() != syscall.SIGTERM {
			t.Errorf("%s: %v, want killed by TERM", what, ws)
		}
	case <-time.After(10 * time.Second):
		t.Errorf("%s still runs 10s after the waiter saw EOF", what)
	}
}

func equalTail(got, want []string) bool {
	return len(got) == len(want)+1 && strings.Join(got[1:], "\x00") == strings.Join(want, "\x00")
}
