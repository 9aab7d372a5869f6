//go:build linux

package proc

import (
	"bytes"
	"strconv"
)

// Children lists the children of every thread of pid. Each thread keeps
// its own list (task/TID/children): a child belongs to the thread that
// forked it.
func (fs FS) Children(pid int) []int {
	base := fs.root + "/" + strconv.Itoa(pid) + "/task/"
	tasks, err := numericEntries(base)
	if err != nil {
		return nil
	}
	var out []int
	// Room for a few hundred children in one read: the list is made
	// afresh at each read, and a child that exits between two reads
	// shifts the rest, which may skip one.
	buf := make([]byte, 0, 4096)
	for _, tid := range tasks {
		data, err := readInto(base+strconv.Itoa(tid)+"/children", buf)
		buf = data
		if err != nil {
			continue
		}
		for _, f := range bytes.Fields(data) {
			if c, err := strconv.Atoi(string(f)); err == nil {
				out = append(out, c)
			}
		}
	}
	return out
}
