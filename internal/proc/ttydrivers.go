package proc

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// ParseTTYDrivers reads the major device numbers of the terminals'
// drivers from the contents of /proc/tty/drivers (name, device path,
// major, minor range, type on each line): the consoles, serial lines,
// pseudo-terminals and whatever other terminal this kernel drives,
// numbered as it numbered them (dynamic majors included). A line that is
// not five fields or has no number for a major is an error.
func ParseTTYDrivers(data []byte) (map[uint32]bool, error) {
	majors := map[uint32]bool{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 5 {
			return nil, fmt.Errorf("tty drivers line %q: want 5 fields", line)
		}
		n, err := strconv.ParseUint(f[2], 10, 32)
		if err != nil {
			return nil, fmt.Errorf("tty drivers line %q: major %q: %w", line, f[2], err)
		}
		majors[uint32(n)] = true
	}
	return majors, sc.Err()
}
