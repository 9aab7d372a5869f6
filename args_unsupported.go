//go:build !unix

package main

import (
	"fmt"
	"strings"
	"syscall"
)

// parseSignal knows the few signal names this platform defines.
func parseSignal(s string) (syscall.Signal, error) {
	switch strings.TrimPrefix(strings.ToUpper(s), "SIG") {
	case "TERM", "15":
		return syscall.SIGTERM, nil
	case "KILL", "9":
		return syscall.SIGKILL, nil
	case "INT", "2":
		return syscall.SIGINT, nil
	case "HUP", "1":
		return syscall.SIGHUP, nil
	}
	return 0, fmt.Errorf("unknown signal %q", s)
}
