//go:build !unix

package signame

import "syscall"

// Name is a signal's name as this platform spells it.
func Name(sig syscall.Signal) string { return sig.String() }

// Num knows no names here: 0.
func Num(name string) syscall.Signal { return 0 }
