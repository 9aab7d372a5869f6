package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/tetherproc/tether/internal/proctest"
)

// tetherBin is tether built from this tree, in a directory every user can
// read, so that it can also be run as another user.
var tetherBin string

// Exit statuses of tether itself, as docs/commands.md documents them.
const (
	exitUsage  = 125 // bad usage
	exitFailed = 125 // any other failure of tether's own
)

func TestMain(m *testing.M) {
	proctest.Helper()
	dir, err := os.MkdirTemp("", "tether-bin-")
	if err == nil {
		err = os.Chmod(dir, 0o755)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	tetherBin = filepath.Join(dir, "tether")
	args := []string{"build", "-o", tetherBin}
	if portable {
		args = append(args, "-tags", "tetherportable")
	}
	build := exec.Command("go", append(args, "github.com/tetherproc/tether")...)
	// Static, as every build command the docs give makes it.
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build tether:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := proctest.Run(m)
	os.RemoveAll(dir)
	os.Exit(code)
}

type result struct {
	code           int
	stdout, stderr string
}

// tether runs the built binary as a user would, with the test's
// environment less any marker variables, plus env.
func tether(t *testing.T, env []string, args ...string) result {
	t.Helper()
	return tetherCmd(t, exec.Command(tetherBin, args...), env)
}

// tetherCmd runs cmd (tether, or a program that runs it) as tether does,
// in the test's environment less any marker variables unless cmd has
// one of its own, plus env.
func tetherCmd(t *testing.T, cmd *exec.Cmd, env []string) result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if cmd.Env == nil {
		cmd.Env = append(proctest.CleanEnv(), proctest.Env(t)...)
	}
	cmd.Env = append(cmd.Env, env...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			code = 128 + int(ws.Signal()) // as a shell shows it
		}
	} else if err != nil {
		t.Fatalf("run %s: %v", strings.Join(cmd.Args, " "), err)
	}
	wantNoTraceback(t, strings.Join(cmd.Args, " "), stderr.String())
	return result{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

// wantUsage asserts exit 125 with exactly one line on stderr that names
// the bad value, and nothing on stdout.
func wantUsage(t *testing.T, r result, bad string) {
	t.Helper()
	if r.code != exitUsage {
		t.Errorf("exit %d, want %d (stderr %q)", r.code, exitUsage, r.stderr)
	}
	if r.stdout != "" {
		t.Errorf("stdout %q, want nothing", r.stdout)
	}
	lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
	if len(lines) != 1 || lines[0] == "" {
		t.Errorf("stderr %q, want one line", r.stderr)
	}
	if !strings.Contains(r.stderr, bad) {
		t.Errorf("stderr %q does not name %q", r.stderr, bad)
	}
}

func TestVersionAndHelp(t *testing.T) {
	r := tether(t, nil, "--version")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "tether version ") {
		t.Errorf("--version: exit %d, stdout %q; want exit 0 and \"tether version ...\"", r.code, r.stdout)
	}
	for _, args := range [][]string{{"--help"}, {"check", "--help"}, {"help", "check"}} {
		r := tether(t, nil, args...)
		if r.code != 0 || !strings.Contains(r.stdout, "check") {
			t.Errorf("%q: exit %d, stdout %q; want exit 0 and help that names check", args, r.code, r.stdout)
		}
	}
	r = tether(t, nil)
	if r.code != exitUsage || !strings.Contains(r.stderr+r.stdout, "USAGE") {
		t.Errorf("no arguments: %+v; want exit %d and the usage", r, exitUsage)
	}
}

func TestUnknownCommandAndFlag(t *testing.T) {
	wantUsage(t, tether(t, nil, "frobnicate"), `"frobnicate"`)
	wantUsage(t, tether(t, nil, "--frobnicate"), "frobnicate")
	wantUsage(t, tether(t, nil, "check", "--frobnicate", "1"), "frobnicate")
	wantUsage(t, tether(t, nil, "check", "--json=maybe", "1"), "maybe")
}
