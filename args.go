package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/readiness"
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
// range (3000-3005) or a list of either (3000,3002-3004), each after an
// optional host of this machine (:8080, localhost:8080, 127.0.0.1:8080,
// [::1]:8080), the flag given again for more. A port given twice counts
// once, in the order first given. A host that is not this machine's is
// refused: nothing of another machine can be listed or ended.
func parsePorts(args []string) ([]uint16, error) {
	ports, remote, err := parseEndpoints(args)
	if err == nil && len(remote) > 0 {
		r := remote[0]
		err = fmt.Errorf("invalid port %q: %s is not this machine: nothing of another machine can be seen or ended (tether wait -p %s waits for it)", r.String(), r.Host, r.String())
	}
	return ports, err
}

// hostLookup is how long the host of a --port value may take to look up.
const hostLookup = 2 * time.Second

// parseEndpoints parses --port values as parsePorts does, and sorts them
// into this machine's ports and other hosts' (remote). A host is this
// machine's when it is empty (:8080), localhost, or every address it has
// is a loopback, wildcard or interface address here; a name that cannot
// be looked up now (a service not started yet) is another host's.
// urfave/cli has already split each value at its commas (and trimmed the
// spaces around them), so a piece here is one [HOST:]PORT or a range.
func parseEndpoints(args []string) (ports []uint16, remote []readiness.Remote, err error) {
	seen := map[uint16]bool{}
	seenRemote := map[readiness.Remote]bool{}
	local := map[string]bool{"": true}
	for _, a := range args {
		host, spec, err := readiness.SplitHostPort(a, false)
		if err != nil {
			return nil, nil, fmt.Errorf("invalid port %q: %s", a, strings.TrimPrefix(err.Error(), fmt.Sprintf("invalid address %q: ", a)))
		}
		if host != "" {
			if err := readiness.CheckHost(host); err != nil {
				return nil, nil, fmt.Errorf("invalid port %q: %v", a, err)
			}
		}
		lo, hi, err := parsePortRange(spec)
		if err != nil && spec != a {
			err = fmt.Errorf("invalid port %q: %s", a, strings.TrimPrefix(err.Error(), fmt.Sprintf("invalid port %q: ", spec)))
		}
		if err != nil {
			return nil, nil, err
		}
		isLocal, known := local[host]
		if !known {
			isLocal = localHost(host)
			local[host] = isLocal
		}
		for p := int(lo); p <= int(hi); p++ {
			if isLocal && !seen[uint16(p)] {
				seen[uint16(p)] = true
				ports = append(ports, uint16(p))
			}
			if r := (readiness.Remote{Host: host, Port: uint16(p)}); !isLocal && !seenRemote[r] {
				seenRemote[r] = true
				remote = append(remote, r)
			}
		}
		if len(ports)+len(remote) > maxPorts {
			return nil, nil, fmt.Errorf("too many ports: %d with %q, more than %d at once", len(ports)+len(remote), a, maxPorts)
		}
	}
	return ports, remote, nil
}

// localHost reports whether host names this machine: every address it
// has is one of this machine's.
func localHost(host string) bool {
	return readiness.LocalHost(host, hostLookup)
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
