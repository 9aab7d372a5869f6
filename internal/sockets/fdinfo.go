package sockets

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// ParseFdinfoFlags reads the open flags (octal, as open(2) takes them)
// from the contents of /proc/PID/fdinfo/N, whose "flags:" line says how
// the descriptor was opened: its low two bits are O_RDONLY, O_WRONLY or
// O_RDWR.
func ParseFdinfoFlags(data []byte) (uint64, error) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		v, ok := strings.CutPrefix(sc.Text(), "flags:")
		if !ok {
			continue
		}
		flags, err := strconv.ParseUint(strings.TrimSpace(v), 8, 64)
		if err != nil {
			return 0, fmt.Errorf("fdinfo flags %q: %w", v, err)
		}
		return flags, nil
	}
	return 0, fmt.Errorf("fdinfo %q: no flags line", data)
}
