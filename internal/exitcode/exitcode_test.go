//go:build linux || darwin

package exitcode

import (
	"fmt"
	"io/fs"
	"os/exec"
	"syscall"
	"testing"
)

func TestExec(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want int
	}{
		{fs.ErrNotExist, 127},
		{fmt.Errorf("exec x: %w", syscall.ENOENT), 127},
		{syscall.EACCES, 126},
		{syscall.ENOEXEC, 126},
		{syscall.EISDIR, 126},
		{syscall.ETXTBSY, 126},
		{syscall.EPERM, 126},
		{syscall.EAGAIN, 125},
		{syscall.ENOMEM, 125},
	} {
		if got := Exec(tc.err); got != tc.want {
			t.Errorf("Exec(%v) = %d, want %d", tc.err, got, tc.want)
		}
	}
}

// Real processes' ends, as wait4 reports them.
func TestWait(t *testing.T) {
	for _, tc := range []struct {
		script string
		want   int
	}{
		{"exit 0", 0},
		{"exit 3", 3},
		{"kill -TERM $$", 128 + int(syscall.SIGTERM)},
		{"kill -KILL $$", 128 + int(syscall.SIGKILL)},
	} {
		cmd := exec.Command("/bin/sh", "-c", tc.script)
		_ = cmd.Run()
		ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
		if got := Wait(ws); got != tc.want {
			t.Errorf("sh -c %q: %d, want %d", tc.script, got, tc.want)
		}
		var sig syscall.Signal
		if ws.Signaled() {
			sig = ws.Signal()
		}
		if got := Of(cmd.ProcessState.ExitCode(), sig); got != tc.want {
			t.Errorf("sh -c %q: Of(%d, %v) = %d, want %d", tc.script, cmd.ProcessState.ExitCode(), sig, got, tc.want)
		}
	}
}
