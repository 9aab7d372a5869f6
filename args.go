package main

import (
	"errors"
	"fmt"
	"slices"
	"strconv"

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

// parsePorts parses repeated --port values; a port given twice counts
// once.
func parsePorts(args []string) ([]uint16, error) {
	var ports []uint16
	for _, a := range args {
		p, err := parsePort(a)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(ports, p) {
			ports = append(ports, p)
		}
	}
	return ports, nil
}
