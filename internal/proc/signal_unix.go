//go:build unix

package proc

import (
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// SignalName is a signal's name without SIG: TERM, KILL.
func SignalName(sig syscall.Signal) string {
	if n := unix.SignalName(sig); n != "" {
		return strings.TrimPrefix(n, "SIG")
	}
	return sig.String()
}
