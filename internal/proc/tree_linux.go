//go:build linux

package proc

import (
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
	buf := make([]byte, 0, 4096)
	for _, tid := range tasks {
		out, buf, _ = readChildren(base+strconv.Itoa(tid)+"/children", out, buf)
	}
	return out
}
