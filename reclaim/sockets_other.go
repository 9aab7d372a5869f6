//go:build !linux

package reclaim

import (
	"fmt"
	"runtime"
)

// Holders fails: without /proc/net there is no socket table to read.
func Holders(ports []uint16) ([]Holder, error) {
	return nil, fmt.Errorf("looking up the holder of a port is not supported on %s", runtime.GOOS)
}

func listeners(ports map[uint16]bool) (map[uint64]Listener, error) {
	_, err := Holders(nil)
	return nil, err
}

func listenersOf(pid int, ls map[uint64]Listener) []Listener { return nil }

func holders(ls map[uint64]Listener) []Holder { return nil }
