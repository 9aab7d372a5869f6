// Package exitcode turns how a process ended, or failed to start, into
// the exit status a shell gives it, so that tether's caller sees what it
// would have seen without tether: the supervisor and the init of a
// contained run both report their command's end this way.
package exitcode

import (
	"errors"
	"io/fs"
	"os/exec"
	"syscall"
)

// Wait is the shell's exit status for a wait status: the exit code, or
// 128+N for death by signal N.
func Wait(ws syscall.WaitStatus) int {
	if ws.Signaled() {
		return Of(0, ws.Signal())
	}
	return ws.ExitStatus()
}

// Of is the shell's exit status for a command that exited with code or,
// when sig is not 0, died of sig: 128+N for death by signal N.
func Of(code int, sig syscall.Signal) int {
	if sig != 0 {
		return 128 + int(sig)
	}
	return code
}

// Exec is the shell's status for a command that could not be started:
// 127 not found, 126 found but not executable, 125 for the rest, which
// is tether's own failure (no process could be created).
func Exec(err error) int {
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, exec.ErrNotFound):
		return 127
	case errors.Is(err, exec.ErrDot), errors.Is(err, syscall.EACCES), errors.Is(err, syscall.ENOEXEC), errors.Is(err, syscall.EISDIR),
		errors.Is(err, syscall.ETXTBSY), errors.Is(err, syscall.EPERM):
		return 126
	}
	return 125
}
