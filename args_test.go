package main

import (
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

func TestPlainUsage(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`invalid value "5x" for flag -grace: parse error`, `--grace: invalid duration "5x" (want a number and a unit: 5s, 500ms, 1m)`},
		{`invalid value "3q" for flag -timeout: time: unknown unit "q" in duration "3q"`, `--timeout: invalid value "3q"`},
		{`invalid value "a" for flag -b" for flag -interval: bad`, `--interval: invalid value "a\" for flag -b"`},
		{`invalid value "x" for flag -Port: bad`, `invalid value "x" for flag -Port: bad`},
		{`invalid value "x" for flag -port`, `invalid value "x" for flag -port`},
		{`flag provided but not defined: -bogus`, `unknown flag --bogus`},
		{`flag provided but not defined: --bogus`, `unknown flag --bogus`},
		{`invalid boolean value "maybe" for -json: parse error`, `invalid boolean value "maybe" for -json: parse error`},
	} {
		if got := plainUsage(tc.in); got != tc.want {
			t.Errorf("plainUsage(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
