//go:build !linux

package reclaim

import (
	"fmt"
	"runtime"
)

// listeners fails: without /proc/net there is no socket table to read.
func listeners(ports map[uint16]bool) (map[uint64]Listener, error) {
	return nil, fmt.Errorf("looking up the holder of a port is not supported on %s", runtime.GOOS)
}

func holders(ls map[uint64]Listener) []Holder { return nil }

func listenersOf(pid int, ls map[uint64]Listener) []Listener { return nil }
