//go:build !linux && !darwin

package sockets

import (
	"fmt"
	"runtime"
)

// listeners fails: there is no socket table to read here.
func listeners(ports map[uint16]bool) (map[uint64]Listener, error) {
	return nil, fmt.Errorf("looking up the holder of a port is not supported on %s", runtime.GOOS)
}

// holders finds nothing: see listeners.
func holders(ls map[uint64]Listener, pids []int) ([]Holder, error) { return nil, nil }
