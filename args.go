package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/tetherproc/tether/internal/proc"
)

// parsePID parses a PID given on the command line: a decimal number from
// 1 to the largest PID the system hands out.
func parsePID(s string) (int, error) {
	if s == "" {
		return 0, errors.New("invalid PID \"\": empty")
	}
	for i := 0; i < len(s); i++ {
		if (s[i] < '0' || s[i] > '9') && !(i == 0 && s[i] == '-') {
			return 0, fmt.Errorf("invalid PID %q: not a number", s)
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	max := proc.Host().MaxPID()
	switch {
	case err != nil && s[0] == '-', err == nil && n <= 0:
		return 0, fmt.Errorf("invalid PID %q: must be a positive number", s)
	case err != nil, n > int64(max):
		return 0, fmt.Errorf("invalid PID %q: larger than the largest PID, %d", s, max)
	}
	return int(n), nil
}

// parsePort parses a port given on the command line: 1 to 65535.
func parsePort(s string) (uint16, error) {
	n, err := strconv.ParseUint(s, 10, 64)
	switch {
	case err != nil && len(s) > 0 && s[0] == '-':
		return 0, fmt.Errorf("invalid port %q: must be 1-65535", s)
	case err != nil:
		return 0, fmt.Errorf("invalid port %q: not a number", s)
	case n == 0 || n > 65535:
		return 0, fmt.Errorf("invalid port %q: must be 1-65535", s)
	}
	return uint16(n), nil
}

// maxPorts caps how many ports one command takes: a range is typed in a
// hurry, and 1-65535 would make a wait or a reclaim about every port of
// the machine. A few thousand is more than any set of servers uses.
const maxPorts = 4096

// parsePorts parses --port values as users type them: a port (8080), a
// range (3000-3005) or a list of either (3000,3002-3004), the flag given
// again for more. A port given twice counts once, in the order first
// given. urfave/cli has already split each value at its commas (and
// trimmed the spaces around them), so a piece here is a port or a range.
func parsePorts(args []string) ([]uint16, error) {
	var ports []uint16
	seen := map[uint16]bool{}
	for _, a := range args {
		lo, hi, err := parsePortRange(a)
		if err != nil {
			return nil, err
		}
		for p := int(lo); p <= int(hi); p++ {
			if !seen[uint16(p)] {
				seen[uint16(p)] = true
				ports = append(ports, uint16(p))
			}
		}
		if len(ports) > maxPorts {
			return nil, fmt.Errorf("too many ports: %d with %q, more than %d at once", len(ports), a, maxPorts)
		}
	}
	return ports, nil
}

// parsePortRange parses one port, or a range LOW-HIGH with LOW <= HIGH.
// A leading "-" is a negative number, not a range with no start.
func parsePortRange(s string) (lo, hi uint16, err error) {
	if s == "" {
		return 0, 0, errors.New(`invalid port "": empty (a list such as 3000,3002 has no empty items)`)
	}
	first, last, isRange := strings.Cut(s, "-")
	if !isRange || first == "" {
		p, err := parsePort(s)
		return p, p, err
	}
	if last == "" {
		return 0, 0, fmt.Errorf("invalid port range %q: no end (want LOW-HIGH, such as 3000-3005)", s)
	}
	if lo, err = parsePort(first); err == nil {
		hi, err = parsePort(last)
	}
	switch {
	case err != nil:
		return 0, 0, fmt.Errorf("invalid port range %q: %w", s, err)
	case lo > hi:
		return 0, 0, fmt.Errorf("invalid port range %q: reversed (want LOW-HIGH, LOW <= HIGH: %d-%d)", s, hi, lo)
	case int(hi)-int(lo)+1 > maxPorts:
		return 0, 0, fmt.Errorf("invalid port range %q: %d ports, more than %d at once", s, int(hi)-int(lo)+1, maxPorts)
	}
	return lo, hi, nil
}
