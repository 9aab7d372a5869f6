//go:build unix

package main

import (
	"fmt"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// parseSignal accepts a signal by name, with or without SIG and in any
// case (TERM, SIGTERM, term), or by number (15).
func parseSignal(s string) (syscall.Signal, error) {
	if n, err := strconv.Atoi(s); err == nil {
		if n <= 0 || unix.SignalName(syscall.Signal(n)) == "" {
			return 0, fmt.Errorf("unknown signal %q", s)
		}
		return syscall.Signal(n), nil
	}
	name := strings.ToUpper(s)
	if !strings.HasPrefix(name, "SIG") {
		name = "SIG" + name
	}
	if sig := unix.SignalNum(name); sig != 0 {
		return sig, nil
	}
	return 0, fmt.Errorf("unknown signal %q (want a name such as TERM, INT, KILL, or a number)", s)
}
