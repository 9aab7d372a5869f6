package watchdog

import (
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tetherproc/tether/marker"
	"github.com/tetherproc/tether/procid"
)

// The cases of the pipe protocol, run against each of its three readers:
// the waiter, the shell script and the Go second stage. A line counts
// only whole, and one a reader cannot read leaves what came before in
// place. In the inputs A and B stand for two process groups of the
// test's own, D for a directory with a cgroup.kill file of its own; the
// group a bad line would name, were it taken, is B: the failure is a
// signal to the test's own process, never to anything else.
var protocolCases = []struct {
	name, input string
	done        bool
	group       string // "A", or "" for none
	dir         string // "D", another directory, or "" for none
}{
	{name: "done", input: "g A\nc D\nd\n", done: true},
	{name: "done after more", input: "g 1\ng-\nc /nonexistent\nd\n", done: true},
	{name: "group and cgroup", input: "g A\nc D\n", group: "A", dir: "D"},
	{name: "noise before", input: "\nxyz\ng 12x4\ng A\nc D\n", group: "A", dir: "D"},
	{name: "group gone", input: "g A\ng-\n"},
	{name: "group 0 is none", input: "g A\ng 0\n"},
	{name: "empty group is none", input: "g A\ng \n"},
	{name: "leading zeros", input: "g 000A\n", group: "A"},
	{name: "group past 2^31 wraps to B", input: "g A\nc D\ng 4294967296+B\n", group: "A", dir: "D"},
	{name: "group past 2^64 wraps to B", input: "g A\nc D\ng 18446744073709551616+B\n", group: "A", dir: "D"},
	{name: "g- followed by more", input: "g A\ng-x\n", group: "A"},
	{name: "g- cut short", input: "g A\ng-", group: "A"},
	{name: "group cut short", input: "g A\ng B", group: "A"},
	{name: "empty directory is none", input: "g A\nc D\nc \n", group: "A"},
	{name: "directory cut short", input: "g A\nc D\nc /elsewhere", group: "A", dir: "D"},
	{name: "directory of PATH_MAX", input: "g A\nc D\nc /" + strings.Repeat("x", pathMax-1) + "\n", group: "A", dir: "D"},
	{name: "directory of PATH_MAX-1", input: "g A\nc /" + strings.Repeat("x", pathMax-2) + "\n", group: "A", dir: "/" + strings.Repeat("x", pathMax-2)},
	{name: "unknown words and spaces", input: "g A\n d\nd \ndone\ng  B\ng B \n g B\nx\n\n", group: "A"},
}

func TestProtocolGoReader(t *testing.T) {
	for _, tc := range protocolCases {
		t.Run(tc.name, func(t *testing.T) {
			const a, b = 1111, 2222
			dir := "/run/D"
			s, done := readLines(strings.NewReader(expand(t, tc.input, a, b, dir)))
			want := state{cgroup: strings.ReplaceAll(tc.dir, "D", dir)}
			if tc.group == "A" {
				want.group = a
			}
			if done != tc.done || !done && s != want {
				t.Errorf("readLines: %+v, done %v; want %+v, done %v", s, done, want, tc.done)
			}
		})
	}
}

func TestProtocolWaiter(t *testing.T) { testProtocol(t, waiterStage) }

func TestProtocolShell(t *testing.T) { testProtocol(t, shellStage) }

func testProtocol(t *testing.T, which int) {
	dir := t.TempDir()
	for _, tc := range protocolCases {
		t.Run(tc.name, func(t *testing.T) {
			a, aStatus := group(t)
			b, bStatus := group(t)
			if err := os.WriteFile(filepath.Join(dir, "cgroup.kill"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			wr := startStage(t, which)
			fmt.Fprint(wr.w, expand(t, tc.input, a, b, dir))
			wr.w.Close()
			if tc.done {
				if ws := wr.wait(t); !ws.Exited() || ws.ExitStatus() != 0 {
					t.Errorf("after d: %v, want exit 0", ws)
				}
				if _, err := os.Stat(wr.args); err == nil {
					t.Error("the second stage ran after d")
				}
				return
			}
			wantDir := strings.ReplaceAll(tc.dir, "D", dir)
			if got := wr.stage2Args(t); !equalTail(got, []string{Arg, "2", wantDir}) {
				t.Errorf("the second stage got %q, want its path, then %s 2 %q (no run id)", got, Arg, wantDir)
			}
			if tc.group == "A" {
				wantTERM(t, "group A", aStatus)
			}
			select {
			case ws := <-bStatus:
				t.Errorf("group B ended (%v): a line that should have been skipped was taken", ws)
			case ws := <-aStatus:
				t.Errorf("group A ended (%v), want it left alone", ws)
			case <-time.After(100 * time.Millisecond):
			}
			data, _ := os.ReadFile(filepath.Join(dir, "cgroup.kill"))
			// The kernel takes "1" and "1\n" (the shell's echo) alike.
			if want := map[bool]string{true: "1", false: ""}[wantDir == dir]; strings.TrimSuffix(string(data), "\n") != want {
				t.Errorf("cgroup.kill holds %q, want %q", data, want)
			}
		})
	}
}

// Group numbers at the edge of pid_t, where no process group can be
// (pid_max is at most 2^22), read by the Go reader alone.
func TestGroupNumber(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
		ok   bool
	}{
		{"2147483647", 1<<31 - 1, true},
		{"2147483648", 0, false},
		{"0002147483647", 1<<31 - 1, true},
		{"", 0, true},
		{"-1", 0, false},
		{"+1", 0, false},
	} {
		if n, ok := groupNumber(tc.in); n != tc.want || ok != tc.ok {
			t.Errorf("groupNumber(%q) = %d, %v; want %d, %v", tc.in, n, ok, tc.want, tc.ok)
		}
	}
}

// The member list reads back as written, up to its end: what a longer,
// older list left behind is never read.
func TestMemberList(t *testing.T) {
	ms := []procid.ID{{PID: 10, StartTime: 99}, {PID: 4194304, StartTime: 1 << 40}}
	var older []procid.ID
	for pid := 1; pid <= 10; pid++ {
		older = append(older, procid.ID{PID: pid, StartTime: 123456})
	}
	runID := marker.NewRunID()
	old := encodeMembers(runID, older)
	b := encodeMembers(runID, ms)
	over := append(append([]byte{}, b...), old[len(b):]...)
	for _, data := range [][]byte{b, over} {
		if got := decodeMembers(data); len(got) != 2 || got[0] != ms[0] || got[1] != ms[1] {
			t.Errorf("decodeMembers(%q) = %v, want %v", data, got, ms)
		}
		if got := decodeRunID(data); got != runID {
			t.Errorf("decodeRunID(%q) = %q, want %q", data, got, runID)
		}
	}
	if got := decodeRunID(encodeMembers("", ms)); got != "" {
		t.Errorf("decodeRunID of a host's list = %q, want none", got)
	}
	if got := decodeMembers([]byte("x y\n-1 5\n7\n8 9\n")); len(got) != 1 || got[0] != (procid.ID{PID: 8, StartTime: 9}) {
		t.Errorf("decodeMembers of bad lines: %v, want only 8 9", got)
	}
}

// expand puts the test's groups and directory in place of A, B and D,
// and "N+B" for the decimal N + b, a number that truncated to 32 bits is
// b.
func expand(t *testing.T, input string, a, b int, dir string) string {
	for _, n := range []string{"4294967296", "18446744073709551616"} {
		big, ok := new(big.Int).SetString(n, 10)
		if !ok {
			t.Fatal(n)
		}
		input = strings.ReplaceAll(input, n+"+B", big.Add(big, bigInt(b)).String())
	}
	return strings.NewReplacer("A", strconv.Itoa(a), "B", strconv.Itoa(b), "D", dir).Replace(input)
}

func bigInt(n int) *big.Int { return big.NewInt(int64(n)) }

// The first stages a test can start by hand.
const (
	waiterStage = iota
	shellStage
)

// stageRun is a first stage started by hand: the write end of its pipe,
// and the file its the second stage (a shell script standing in for tether's
// binary) writes its arguments to.
type stageRun struct {
	pid  int
	w    *os.File
	args string
}

// startStage starts one first stage as Start would, with the stand-in
// for tether's binary given the run id "one" and a grace of 2 ns.
func startStage(t *testing.T, which int) *stageRun {
	t.Helper()
	dir := t.TempDir()
	wr := &stageRun{args: filepath.Join(dir, "args")}
	stage2 := filepath.Join(dir, "stage2")
	script := "#!/bin/sh\nprintf '%s\\n' \"$0\" \"$@\" >" + wr.args + ".tmp && mv " + wr.args + ".tmp " + wr.args + "\n"
	if err := os.WriteFile(stage2, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	hs := Spec{Path: stage2, Shell: "/bin/sh", RunID: "one", Grace: 2}.firstStages()
	var h firstStage
	switch {
	case which == shellStage:
		h = hs[len(hs)-2]
	case len(hs) == 3:
		h = hs[0]
	default:
		_, err := waiterFD()
		t.Skipf("no waiter here: %v", err)
	}
	exe, err := unix.Open(stage2, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(exe)
	r, w, err := pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(r)
	members, err := memberFile()
	if err != nil {
		t.Fatal(err)
	}
	defer members.Close()
	wr.w = w
	if wr.pid, err = start(h, r, exe, members); err != nil {
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

// wait reaps the stage, or fails after a generous deadline.
func (wr *stageRun) wait(t *testing.T) unix.WaitStatus {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		var ws unix.WaitStatus
		if pid, err := unix.Wait4(wr.pid, &ws, unix.WNOHANG, nil); err == nil && pid == wr.pid {
			return ws
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("first stage %d still running after 10s", wr.pid)
	return 0
}

// stage2Args waits for the second stage's arguments, one a line.
func (wr *stageRun) stage2Args(t *testing.T) []string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if data, err := os.ReadFile(wr.args); err == nil {
			return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatal("the second stage never ran")
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
		t.Errorf("%s still runs 10s after the first stage saw EOF", what)
	}
}

func equalTail(got, want []string) bool {
	return len(got) == len(want)+1 && strings.Join(got[1:], "\x00") == strings.Join(want, "\x00")
}
