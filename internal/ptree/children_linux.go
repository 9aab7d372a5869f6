//go:build linux

package ptree

import (
	"fmt"
	"strconv"

	"github.com/tetherproc/tether/internal/proc"
)

// Children lists the children of every thread of pid. Each thread keeps
// its own list (task/TID/children): a child belongs to the thread that
// forked it. A list that cannot be read is left out.
func Children(fs proc.FS, pid int) []int {
	ls, _, _ := threadLists(fs, pid, nil)
	var out []int
	for _, l := range ls {
		out = append(out, l.pids...)
	}
	return out
}

// threadLists reads the children list of every thread of pid, each on
// its own. It reads on past a list it cannot read, and returns the first
// such failure that is not the thread's (or pid's) end. A pid gone has
// none.
func threadLists(fs proc.FS, pid int, buf []byte) ([]childList, []byte, error) {
	base := fs.Root() + "/" + strconv.Itoa(pid) + "/task/"
	tasks, err := proc.NumericEntries(base)
	if gone(err) {
		return nil, buf, nil
	}
	if err != nil {
		return nil, buf, err
	}
	if buf == nil {
		buf = make([]byte, 0, 4096)
	}
	var ls []childList
	var failed error
	for _, tid := range tasks {
		kids, b, err := proc.ReadChildren(base+strconv.Itoa(tid)+"/children", nil, buf)
		buf = b
		if err != nil && !gone(err) && failed == nil {
			failed = fmt.Errorf("children of %d: %w", pid, err)
		}
		ls = append(ls, childList{tid, kids})
	}
	return ls, buf, failed
}
