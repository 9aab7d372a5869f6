package sockets

import (
	"slices"
)

// Listeners returns the sockets that serve ports, by Inode; with no port
// given, those of every port.
func Listeners(ports ...uint16) (map[uint64]Listener, error) {
	var want map[uint16]bool
	if len(ports) > 0 {
		want = make(map[uint16]bool, len(ports))
		for _, p := range ports {
			want[p] = true
		}
	}
	return listeners(want)
}

// Holders returns the processes that hold any of ls, reading every
// process's descriptors: one holder for each socket each process holds.
func Holders(ls map[uint64]Listener) ([]Holder, error) {
	return holders(ls, nil)
}

// HoldersAmong is Holders reading the descriptors of pids only: none
// when pids is empty.
func HoldersAmong(ls map[uint64]Listener, pids []int) ([]Holder, error) {
	if len(pids) == 0 {
		return nil, nil
	}
	return holders(ls, pids)
}

// Lookup is Listeners of ports and their Holders: who holds each port,
// in one walk of every process's descriptors.
func Lookup(ports ...uint16) (map[uint64]Listener, []Holder, error) {
	ls, err := Listeners(ports...)
	if err != nil {
		return nil, nil, err
	}
	hs, err := Holders(ls)
	return ls, hs, err
}

// Unique keeps the first of each port: one given twice is asked about
// once.
func Unique(ports []uint16) []uint16 {
	var out []uint16
	for _, p := range ports {
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}
