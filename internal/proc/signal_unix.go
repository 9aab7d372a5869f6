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

// SignalNum is the signal named name without SIG (TERM, KILL), as
// SignalName writes it; 0 for none.
func SignalNum(name string) syscall.Signal {
	if name == "" {
		return 0
	}
	return unix.SignalNum("SIG" + name)
}
