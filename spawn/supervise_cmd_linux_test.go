package spawn_test

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tetherproc/tether/spawn"
)

// cmdScript reads and writes every descriptor os/exec lets a caller set:
// the working directory, a variable of its own environment, its standard
// input, both outputs and an extra file.
const cmdScript = `pwd; echo "FOO=$FOO"; cat; echo to-stderr >&2; echo to-extra >&3; exit 5`

// sameAsExec runs one description of a command through os/exec and
// through Supervise: whatever os/exec makes of it, Supervise makes the
// same of it.
func sameAsExec(t *testing.T, opts spawn.Options) {
	t.Helper()
	dir := t.TempDir()
	run := func(start func(*exec.Cmd) (string, error)) (string, string, string) {
		t.Helper()
		rd, wr, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer rd.Close()
		var out bytes.Buffer
		cmd := exec.Command("/bin/sh", "-c", cmdScript)
		cmd.Dir = dir
		cmd.Env = []string{"FOO=bar", "PATH=" + os.Getenv("PATH")}
		cmd.Stdin = strings.NewReader("from-stdin\n")
		cmd.Stdout, cmd.Stderr = &out, &out // one pipe for both, in order
		cmd.ExtraFiles = []*os.File{wr}
		status, err := start(cmd)
		wr.Close()
		if err != nil {
			t.Fatalf("%v", err)
		}
		extra := make([]byte, 64)
		n, _ := rd.Read(extra)
		return out.String(), string(extra[:n]), status
	}
	// How it ended is said as os.ProcessState says it.
	wantOut, wantExtra, wantStatus := run(func(c *exec.Cmd) (string, error) {
		err := c.Run()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ProcessState.String(), nil
		}
		return "", err
	})
	gotOut, gotExtra, gotStatus := run(func(c *exec.Cmd) (string, error) {
		ended, err := spawn.Supervise(context.Background(), c, opts)
		return ended.String(), err
	})
	if gotOut != wantOut || gotExtra != wantExtra || gotStatus != wantStatus {
		t.Errorf("Supervise: output %q, extra %q, %s\nos/exec:   output %q, extra %q, %s", gotOut, gotExtra, gotStatus, wantOut, wantExtra, wantStatus)
	}
	if !strings.Contains(wantOut, dir) || wantExtra != "to-extra\n" || wantStatus != "exit status 5" {
		t.Errorf("the script itself went wrong under os/exec: %q %q %s", wantOut, wantExtra, wantStatus)
	}
}

// A command described as os/exec describes it (Dir, Env, a reader for
// Stdin, one writer for both outputs, ExtraFiles) runs under Supervise
// as it runs under cmd.Run.
func TestSuperviseCmdAsExec(t *testing.T) {
	sameAsExec(t, spawn.Options{})
}

// In a PID namespace the init passes the extra files on: the command
// still finds them at 3 and on.
func TestSuperviseCmdAsExecContained(t *testing.T) {
	probe := exec.Command("/bin/true")
	if _, err := spawn.Supervise(context.Background(), probe, spawn.Options{Contain: spawn.ContainPIDNamespace}); err != nil {
		var ce *spawn.ContainError
		if errors.As(err, &ce) {
			t.Skipf("no PID namespace here: %v", err)
		}
		t.Fatal(err)
	}
	sameAsExec(t, spawn.Options{Contain: spawn.ContainPIDNamespace})
}

// A nil Stdin, Stdout or Stderr is the null device, as in os/exec, not
// the program's own.
func TestSuperviseCmdNilIsNull(t *testing.T) {
	cmd := exec.Command("/bin/sh", "-c", `for fd in 0 1 2; do [ "$(readlink /proc/$$/fd/$fd)" = /dev/null ] || exit 1; done; exit 7`)
	status, err := spawn.Supervise(context.Background(), cmd, spawn.Options{})
	if status != (spawn.Exit{Code: 7}) || err != nil {
		t.Errorf("Supervise = %v, %v; want exit status 7 (all three /dev/null), nil", status, err)
	}
}

// What os/exec refuses or cannot find, Supervise refuses with the status
// a shell gives it; what is the run's to set, it refuses by name.
func TestSuperviseCmdRefused(t *testing.T) {
	started := exec.Command("/bin/true")
	if err := started.Start(); err != nil {
		t.Fatal(err)
	}
	_ = started.Wait()
	// No execute bit at all: refused to root as well.
	plain := filepath.Join(t.TempDir(), "plain")
	if err := os.WriteFile(plain, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		cmd   *exec.Cmd
		exec  bool  // the command's own failure
		cause error // what errors.Is finds in it
		says  string
	}{
		{"not found in PATH", exec.Command("tether-no-such-command"), true, exec.ErrNotFound, "tether-no-such-command: command not found"},
		{"no such path", exec.Command("/nonexistent/command"), true, fs.ErrNotExist, "/nonexistent/command"},
		{"a directory", exec.Command("/"), true, syscall.EISDIR, "/"},
		{"not executable", exec.Command(plain), true, fs.ErrPermission, plain},
		{"no command", &exec.Cmd{}, false, nil, "no command"},
		{"no such directory", &exec.Cmd{Path: "/bin/true", Dir: "/nonexistent-dir"}, false, fs.ErrNotExist, "chdir /nonexistent-dir"},
		{"already started", started, false, nil, "already started"},
		{"own session", &exec.Cmd{Path: "/bin/true", SysProcAttr: &syscall.SysProcAttr{Setsid: true}}, false, nil, "SysProcAttr"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, err := spawn.Supervise(context.Background(), tc.cmd, spawn.Options{})
			var se *spawn.StartError
			if !errors.As(err, &se) || se.Exec != tc.exec || tc.cause != nil && !errors.Is(err, tc.cause) || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("Supervise = %v, %v; want a StartError (Exec %v, cause %v) saying %q", status, err, tc.exec, tc.cause, tc.says)
			}
		})
	}
}

// A writer whose copy never ends (a grandchild outside the tree's reach
// would hold the pipe; here the writer blocks) is given up on after
// WaitDelay, as os/exec does: exec.ErrWaitDelay, with the status.
func TestSuperviseCmdWaitDelay(t *testing.T) {
	block := make(chan struct{})
	defer close(block)
	cmd := exec.Command("/bin/sh", "-c", "echo one; exit 2")
	cmd.Stdout = writerFunc(func(p []byte) (int, error) { <-block; return len(p), nil })
	cmd.WaitDelay = 200 * time.Millisecond
	status, err := spawn.Supervise(context.Background(), cmd, spawn.Options{})
	if status != (spawn.Exit{Code: 2}) || !errors.Is(err, exec.ErrWaitDelay) {
		t.Errorf("Supervise = %v, %v; want exit status 2 and exec.ErrWaitDelay", status, err)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// A nil among ExtraFiles is a number the command does not have, as in
// os/exec, also through a PID namespace's init, whose own runtime would
// otherwise fill the gap.
func TestSuperviseCmdExtraFilesGap(t *testing.T) {
	for _, opts := range []spawn.Options{{}, {Contain: spawn.ContainPIDNamespace}} {
		rd, wr, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("/bin/sh", "-c", `[ -e /proc/$$/fd/3 ] && echo three open >&4; echo four >&4`)
		cmd.ExtraFiles = []*os.File{nil, wr}
		status, err := spawn.Supervise(context.Background(), cmd, opts)
		wr.Close()
		var ce *spawn.ContainError
		if errors.As(err, &ce) {
			t.Logf("no PID namespace here: %v", err)
			rd.Close()
			continue
		}
		got := make([]byte, 64)
		n, _ := rd.Read(got)
		rd.Close()
		if !status.Success() || err != nil || string(got[:n]) != "four\n" {
			t.Errorf("Contain %q: %v, %v, fd 4 got %q; want 0, four only", opts.Contain, status, err, got[:n])
		}
	}
}

// A command the kernel refuses to execute (here a file with its execute
// bit but no format the kernel knows: ENOEXEC) is a StartError with Exec
// set, whose cause errors.Is finds, also in a PID namespace, where the
// namespace's init is the one that fails to execute it; and nothing of
// it reaches the command's standard error.
func TestSuperviseCmdExecFailed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "not-a-program")
	if err := os.WriteFile(path, []byte("\x00\x01 not a program\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, opts := range []spawn.Options{{}, {Contain: spawn.ContainPIDNamespace}} {
		var stderr strings.Builder
		cmd := exec.Command(path)
		cmd.Stderr = &stderr
		status, err := spawn.Supervise(context.Background(), cmd, opts)
		var ce *spawn.ContainError
		if errors.As(err, &ce) {
			t.Logf("no PID namespace here: %v", err)
			continue
		}
		var se *spawn.StartError
		if !errors.As(err, &se) || !se.Exec || !errors.Is(err, syscall.ENOEXEC) || status != (spawn.Exit{}) {
			t.Errorf("Contain %q: %v, %v; want the zero Exit and a StartError with Exec whose cause is ENOEXEC", opts.Contain, status, err)
		}
		if se != nil && !strings.Contains(se.Error(), path) {
			t.Errorf("Contain %q: %q does not name the command", opts.Contain, se.Error())
		}
		if stderr.Len() > 0 {
			t.Errorf("Contain %q: the command's stderr got %q, want nothing", opts.Contain, stderr.String())
		}
	}
}

// A credential in SysProcAttr is the command's, contained or not: in a
// PID namespace the init keeps the caller's identity (it mounts the
// namespace's /proc) and the command runs as the credential says.
func TestSuperviseCmdCredential(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to start a command as uid 65534")
	}
	for _, opts := range []spawn.Options{{}, {Contain: spawn.ContainPIDNamespace}} {
		var out strings.Builder
		cmd := exec.Command("/bin/sh", "-c", `echo "$(id -u) $(id -g) $PPID"`)
		cmd.Stdout = &out
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		status, err := spawn.Supervise(context.Background(), cmd, opts)
		var ce *spawn.ContainError
		if errors.As(err, &ce) {
			t.Logf("no PID namespace here: %v", err)
			continue
		}
		f := strings.Fields(out.String())
		if !status.Success() || err != nil || len(f) != 3 || f[0] != "65534" || f[1] != "65534" {
			t.Errorf("Contain %q: %v, %v, output %q; want exit status 0 and uid, gid 65534", opts.Contain, status, err, out.String())
		}
		if opts.Contain == spawn.ContainPIDNamespace && len(f) == 3 && f[2] != "1" {
			t.Errorf("contained: the command's parent is PID %s, want 1 (the namespace's init)", f[2])
		}
	}
}

// How a command ended is told as os/exec tells it: the same words, the
// same exit code (-1 for death by a signal), and the signal itself.
func TestSuperviseExitAsProcessState(t *testing.T) {
	dir := t.TempDir() // where a core dump, if any, is written
	for _, script := range []string{"exit 0", "exit 3", "kill -TERM $$", "kill -KILL $$", "ulimit -c unlimited; kill -SEGV $$"} {
		cmd := exec.Command("/bin/sh", "-c", script)
		cmd.Dir = dir
		err := cmd.Run()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatalf("%q under os/exec: %v", script, err)
		}
		want, wantSig := spawn.Exit{}, syscall.Signal(0)
		wantText := "exit status 0"
		if ee != nil {
			want.Code, wantText = ee.ExitCode(), ee.ProcessState.String()
			if ws := ee.Sys().(syscall.WaitStatus); ws.Signaled() {
				wantSig, want.CoreDump = ws.Signal(), ws.CoreDump()
			}
		}
		want.Signal = wantSig
		cmd = exec.Command("/bin/sh", "-c", script)
		cmd.Dir = dir
		got, err := spawn.Supervise(context.Background(), cmd, spawn.Options{})
		if err != nil || got != want || got.String() != wantText || got.Exited() != (wantSig == 0) {
			t.Errorf("Supervise(%q) = %#v (%q), %v; want %#v (%q) as os/exec", script, got, got, err, want, wantText)
		}
	}
}
