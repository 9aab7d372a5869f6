package proctest

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
)

// retitle writes title, then NULs, over the process's argument and
// environment area (arg_start to env_end, fields 48 to 51 of
// /proc/self/stat) through /proc/self/mem, as setproctitle does. Go's own
// view of its arguments and environment points into that memory: nothing
// may be read from either afterwards.
func retitle(title string) error {
	stat, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return err
	}
	fields := bytes.Fields(stat[bytes.LastIndexByte(stat, ')')+1:])
	if len(fields) < 52-2 {
		return fmt.Errorf("stat has %d fields after the command name, want the memory layout", len(fields))
	}
	field := func(n int) (int64, error) { return strconv.ParseInt(string(fields[n-3]), 10, 64) }
	start, err := field(48)
	if err != nil {
		return err
	}
	end, err := field(51)
	if err != nil || end <= start {
		return fmt.Errorf("env_end %d before arg_start %d: %v", end, start, err)
	}
	area := make([]byte, end-start)
	copy(area, title)
	mem, err := os.OpenFile("/proc/self/mem", os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer mem.Close()
	_, err = mem.WriteAt(area, start)
	return err
}
