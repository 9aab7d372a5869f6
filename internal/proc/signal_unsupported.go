//go:build !unix

package proc

import "syscall"

// SignalName is a signal's name as this platform spells it.
func SignalName(sig syscall.Signal) string { return sig.String() }
