package pidns

import (
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/tetherproc/tether/internal/exitcode"
)

// startInit starts the test binary as the init of new namespaces running
// script, as the supervisor does, and returns the handle and the init's
// PID; the cleanup kills the init, and with it the namespace.
func startInit(t *testing.T, script string) (*Init, int) {
	t.Helper()
	if err := Try("/proc/self/exe"); err != nil {
		t.Skipf("no PID namespace here: %v", err)
	}
	attr := &syscall.ProcAttr{
		Env:   os.Environ(),
		Files: []uintptr{0, os.Stdout.Fd(), os.Stderr.Fd()},
		Sys:   &syscall.SysProcAttr{Setpgid: true},
	}
	in, argv, err := Prepare("/proc/self/exe", "/bin/sh", []string{"sh", "-c", script}, time.Second, nil, attr)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := syscall.ForkExec("/proc/self/exe", argv, attr)
	in.Started(pid, err == nil)
	if err != nil {
		in.Close()
		t.Fatalf("start the init: %v", err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		var ws syscall.WaitStatus
		_, _ = syscall.Wait4(pid, &ws, 0, nil)
		in.Close()
	})
	return in, pid
}

// reap waits for the init's own end, within a generous deadline.
func reap(t *testing.T, pid int) syscall.WaitStatus {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		var ws syscall.WaitStatus
		if got, err := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil); err == nil && got == pid {
			return ws
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("init %d still running after 10s", pid)
	return 0
}

// The command's own status comes through the report pipe, also when it
// died of a signal, which the init itself (never killed by one from
// inside) cannot pass on as its own.
func TestInitReportsCommandStatus(t *testing.T) {
	for _, tc := range []struct {
		script string
		want   int
	}{
		{"exit 7", 7},
		{"kill -TERM $$", 128 + int(syscall.SIGTERM)},
		// Not the init, and in a /proc of its own namespace: /proc/self
		// (read by the shell itself) names it by its PID there.
		{`read -r s </proc/self/stat; [ $$ -ne 1 ] && [ "${s%% *}" = $$ ] && exit 0; exit 9`, 0},
	} {
		in, pid := startInit(t, tc.script)
		ws := reap(t, pid)
		if got := exitcode.Wait(in.Status(ws)); got != tc.want {
			t.Errorf("sh -c %q in a new PID namespace: status %d, want %d (the init's own: %d)", tc.script, got, tc.want, exitcode.Wait(ws))
		}
	}
}

// A stop of the command is reported, and the handle continues it: a
// namespace's init cannot stop, so the supervisor stops in its place.
func TestInitReportsStop(t *testing.T) {
	in, pid := startInit(t, "kill -STOP $$; exit 5")
	select {
	case sig := <-in.Stops():
		if sig != syscall.SIGSTOP {
			t.Errorf("stop by %v, want SIGSTOP", sig)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no stop reported in 10s")
	}
	deadline := time.Now().Add(10 * time.Second)
	for !in.StillStopped() || !in.Signal(syscall.SIGCONT) {
		if time.Now().After(deadline) {
			t.Fatal("the command is not held, or not stopped, 10s after its stop was reported")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if got := exitcode.Wait(in.Status(reap(t, pid))); got != 5 {
		t.Errorf("continued command: status %d, want 5", got)
	}
}

// Every method of a nil Init is a no-op, so that a run without a PID
// namespace needs no test of its own.
func TestNilInit(t *testing.T) {
	var in *Init
	in.Started(1, true)
	in.Close()
	if in.Signal(syscall.SIGTERM) || in.CommandGroup(1) != 0 || in.Stops() != nil || in.StillStopped() {
		t.Error("a nil Init did something")
	}
	if ws := syscall.WaitStatus(3 << 8); in.Status(ws) != ws {
		t.Error("a nil Init changed a status")
	}
}

func TestParseReport(t *testing.T) {
	for line, want := range map[string]report{
		"started":  {word: "started"},
		"stop 19":  {word: "stop", n: 19},
		"exit 768": {word: "exit", n: 768},
		"exit x":   {word: "exit"},
		"":         {},
	} {
		if got := parseReport(line); got != want {
			t.Errorf("parseReport(%q) = %+v, want %+v", line, got, want)
		}
	}
}
