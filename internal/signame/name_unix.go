//go:build unix

package signame

import (
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// Name is a signal's name without SIG: TERM, KILL.
func Name(sig syscall.Signal) string {
	if n := unix.SignalName(sig); n != "" {
		return strings.TrimPrefix(n, "SIG")
	}
	return sig.String()
}

// Num is the signal named name without SIG (TERM, KILL), as
// Name writes it; 0 for none.
func Num(name string) syscall.Signal {
	if name == "" {
		return 0
	}
	return unix.SignalNum("SIG" + name)
}
