package proc

import (
	"bytes"
	"fmt"
	"strconv"
)

// ParseStatm reads the resident set, in pages, from the contents of
// /proc/PID/statm: its second field (size, resident, shared, text, lib,
// data, dt, each in pages).
func ParseStatm(data []byte) (residentPages uint64, err error) {
	fields := bytes.Fields(data)
	if len(fields) < 2 {
		return 0, fmt.Errorf("statm %q: want at least 2 fields", data)
	}
	n, err := strconv.ParseUint(string(fields[1]), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("statm resident %q: %w", fields[1], err)
	}
	return n, nil
}
