//go:build !unix

package proc

import "syscall"

// SignalName is a signal's name as this platform spells it.
func SignalName(sig syscall.Signal) string { return sig.String() }

// SignalNum knows no names here: 0.
func SignalNum(name string) syscall.Signal { return 0 }
