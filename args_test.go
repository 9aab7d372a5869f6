package main

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tetherproc/tether/internal/proc"
)

func TestParsePID(t *testing.T) {
	if pid, err := parsePID("1"); err != nil || pid != 1 {
		t.Errorf("parsePID(1) = %d, %v", pid, err)
	}
	max := proc.Host().MaxPID()
	for _, bad := range []string{"", "abc", "-1", "0", "00", "1.5", " 1", "1 ", "+1", "0x10", "99999999999",
		"99999999999999999999999", "-99999999999999999999999"} {
		_, err := parsePID(bad)
		if err == nil {
			t.Errorf("parsePID(%q): no error", bad)
			continue
		}
		if !strings.Contains(err.Error(), `"`+bad+`"`) {
			t.Errorf("parsePID(%q) = %v: does not name the value", bad, err)
		}
	}
	if _, err := parsePID(strconv.Itoa(max + 1)); err == nil {
		t.Errorf("parsePID(%d) past the largest PID: no error", max+1)
	}
}

func TestParsePort(t *testing.T) {
	for _, ok := range []string{"1", "80", "65535"} {
		if _, err := parsePort(ok); err != nil {
			t.Errorf("parsePort(%q): %v", ok, err)
		}
	}
	for _, bad := range []string{"", "0", "-1", "65536", "70000", "abc", "8080x", "99999999999999999999"} {
		_, err := parsePort(bad)
		if err == nil || !strings.Contains(err.Error(), `"`+bad+`"`) {
			t.Errorf("parsePort(%q) = %v", bad, err)
		}
	}
}

func TestParsePorts(t *testing.T) {
	for _, c := range []struct {
		in   []string
		want []uint16
	}{
		{nil, nil},
		{[]string{"8080"}, []uint16{8080}},
		{[]string{"3000-3003"}, []uint16{3000, 3001, 3002, 3003}},
		{[]string{"3000-3000"}, []uint16{3000}},
		// urfave/cli hands a list over split at its commas.
		{[]string{"3002", "3000", "3001-3002"}, []uint16{3002, 3000, 3001}},
		{[]string{"80", "80", "79-81"}, []uint16{80, 79, 81}},
		{[]string{"65534-65535"}, []uint16{65534, 65535}},
	} {
		got, err := parsePorts(c.in)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("parsePorts(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	if got, err := parsePorts([]string{"1-4000", "3000-4096"}); err != nil || len(got) != maxPorts || got[maxPorts-1] != 4096 {
		t.Errorf("parsePorts(1-4000, 3000-4096) = %d ports, %v; want the %d ports 1-4096, the cap counting each port once", len(got), err, maxPorts)
	}
	for _, c := range []struct {
		in       []string
		bad, why string
	}{
		{[]string{"0"}, `"0"`, "1-65535"},
		{[]string{"70000"}, `"70000"`, "1-65535"},
		{[]string{"abc"}, `"abc"`, "not a number"},
		{[]string{"-1"}, `"-1"`, "1-65535"},
		{[]string{"-"}, `"-"`, "1-65535"},
		{[]string{""}, `""`, "empty"},
		{[]string{"80", ""}, `""`, "empty"},
		{[]string{"3005-3000"}, `"3005-3000"`, "reversed"},
		{[]string{"3000-"}, `"3000-"`, "no end"},
		{[]string{"0-10"}, `"0-10"`, "1-65535"},
		{[]string{"10-70000"}, `"10-70000"`, "1-65535"},
		{[]string{"1-2-3"}, `"1-2-3"`, "not a number"},
		{[]string{"3000..3005"}, `"3000..3005"`, "not a number"},
		{[]string{"1-65535"}, `"1-65535"`, "more than 4096"},
		{[]string{"1-4097"}, `"1-4097"`, "4097 ports"},
		{[]string{"1-4000", "5000-5100"}, `"5000-5100"`, "more than 4096"},
	} {
		got, err := parsePorts(c.in)
		if err == nil || !strings.Contains(err.Error(), c.bad) || !strings.Contains(err.Error(), c.why) || got != nil {
			t.Errorf("parsePorts(%q) = %v, %v; want an error naming %s: %s", c.in, got, err, c.bad, c.why)
		}
	}
}

func TestPlainUsage(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`invalid value "5x" for flag -grace: parse error`, `--grace: invalid duration "5x" (want a number and a unit: 5s, 500ms, 1m)`},
		{`invalid value "3q" for flag -timeout: time: unknown unit "q" in duration "3q"`, `--timeout: invalid value "3q"`},
		{`invalid value "a" for flag -b" for flag -interval: bad`, `--interval: invalid value "a\" for flag -b"`},
		{`invalid value "x" for flag -Port: bad`, `invalid value "x" for flag -Port: bad`},
		{`invalid value "x" for flag -port`, `invalid value "x" for flag -port`},
		{`flag provided but not defined: -bogus`, `unknown flag --bogus`},
		{`flag provided but not defined: --bogus`, `unknown flag --bogus`},
		{`Cannot use two forms of the same flag: p port`, `-p and --port are one flag: use one of the two names, repeated as needed`},
		{`invalid boolean value "maybe" for -json: parse error`, `invalid boolean value "maybe" for -json: parse error`},
	} {
		if got := plainUsage(tc.in); got != tc.want {
			t.Errorf("plainUsage(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
