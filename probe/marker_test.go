package probe_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tetherproc/tether/marker"
	"github.com/tetherproc/tether/probe"
	"github.com/tetherproc/tether/procid"
)

// seed is another supervisor's scheme: SYSTEMPROMPT_SUBPROCESS=1 and
// MCP_SERVICE_ID=<name>, compared entry by entry.
var seed = probe.Markers{MarkerVar: "SYSTEMPROMPT_SUBPROCESS", NameVar: "MCP_SERVICE_ID"}

func TestMatch(t *testing.T) {
	tests := []struct {
		m    probe.Markers
		env  []string
		name string
		want bool
	}{
		{probe.Markers{}, []string{"TETHER=1"}, "", true},
		{probe.Markers{}, []string{"TETHER=1", "TETHER_NAME=web"}, "web", true},
		{probe.Markers{}, []string{"TETHER=0", "TETHER=1", "TETHER_NAME=web"}, "web", true},
		{probe.Markers{}, []string{"TETHER=1"}, "web", false},
		{probe.Markers{}, []string{"TETHER=1", "TETHER_NAME=web2"}, "web", false},
		{probe.Markers{}, []string{"TETHER=1", "TETHER_NAME=we"}, "web", false},
		{probe.Markers{}, []string{"TETHER=1", "TETHER_NAME=web "}, "web", false},
		{probe.Markers{}, []string{"TETHER=1", "TETHER_NAME="}, "web", false},
		{probe.Markers{}, []string{"TETHER=0"}, "", false},
		{probe.Markers{}, []string{"TETHER=11"}, "", false},
		{probe.Markers{}, []string{"TETHER=1 "}, "", false},
		{probe.Markers{}, []string{" TETHER=1"}, "", false},
		{probe.Markers{}, []string{"TETHER="}, "", false},
		{probe.Markers{}, []string{"TETHER"}, "", false},
		{probe.Markers{}, []string{"tether=1"}, "", false},
		{probe.Markers{}, []string{"XTETHER=1"}, "", false},
		{probe.Markers{}, nil, "", false},
		// The name lives in the name variable, nowhere else.
		{probe.Markers{}, []string{"TETHER=1", "MCP_SERVICE_ID=web"}, "web", false},

		{seed, []string{"SYSTEMPROMPT_SUBPROCESS=1", "MCP_SERVICE_ID=files"}, "files", true},
		{seed, []string{"SYSTEMPROMPT_SUBPROCESS=1", "MCP_SERVICE_ID=files"}, "", true},
		{seed, []string{"SYSTEMPROMPT_SUBPROCESS=1", "MCP_SERVICE_ID=files-2"}, "files", false},
		{seed, []string{"SYSTEMPROMPT_SUBPROCESS=1", "MCP_SERVICE_ID=file"}, "files", false},
		{seed, []string{"SYSTEMPROMPT_SUBPROCESS=true", "MCP_SERVICE_ID=files"}, "files", false},
		{seed, []string{"SYSTEMPROMPT_SUBPROCESS=1"}, "files", false},
		{seed, []string{"TETHER=1", "TETHER_NAME=files"}, "files", false},
		{seed, []string{"MCP_SERVICE_ID=files"}, "files", false},
	}
	for _, tt := range tests {
		if got := tt.m.Match(tt.env, tt.name); got != tt.want {
			t.Errorf("%+v.Match(%q, %q) = %v, want %v", tt.m, tt.env, tt.name, got, tt.want)
		}
	}
}

func TestEnvironStamp(t *testing.T) {
	s := probe.Stamp{Name: "web", Supervisor: procid.ID{PID: 42, StartTime: 7}, RunID: strings.Repeat("ab", 16)}
	base := []string{"PATH=/bin", "TETHER=1", "TETHER_NAME=old", "TETHER_SUPERVISOR=1:1", "TETHER_RUN_ID=x", "TETHERED=yes"}
	env := (probe.Markers{}).Environ(base, s)
	want := []string{"PATH=/bin", "TETHERED=yes", "TETHER=1", "TETHER_NAME=web", "TETHER_SUPERVISOR=42:7", "TETHER_RUN_ID=" + s.RunID}
	if strings.Join(env, "\n") != strings.Join(want, "\n") {
		t.Errorf("Environ = %q, want %q", env, want)
	}
	if !(probe.Markers{}).Match(env, "web") || (probe.Markers{}).Match(env, "old") {
		t.Error("the stamp does not match its own name only")
	}
	if base[2] != "TETHER_NAME=old" {
		t.Error("Environ modified its input")
	}
	env = seed.Environ(nil, s)
	if !seed.Match(env, "web") || (probe.Markers{}).Match(env, "") {
		t.Errorf("seed stamp %q", env)
	}
}

func TestStampValidatesName(t *testing.T) {
	for _, ok := range []string{"a", "web", "files", "my-server.v2_1", strings.Repeat("x", 64)} {
		if err := (probe.Stamp{Name: ok}).Validate(); err != nil {
			t.Errorf("name %q: %v", ok, err)
		}
	}
	for _, bad := range []string{"a=b", "a b", "a/b", "é", "a\x00", strings.Repeat("x", 65)} {
		err := (probe.Stamp{Name: bad}).Validate()
		if err == nil {
			t.Errorf("name %q: no error", bad)
		} else if !strings.Contains(err.Error(), "invalid name") || !strings.Contains(err.Error(), fmt.Sprintf("%q", bad)) {
			t.Errorf("name %q: %v: does not say what is wrong, with which value", bad, err)
		}
	}
	if err := (probe.Stamp{}).Validate(); err != nil {
		t.Errorf("a zero stamp: %v; want nothing to check", err)
	}
}

func TestNameFor(t *testing.T) {
	tests := map[string]string{
		"/usr/bin/python3":       "python3",
		"./server":               "server",
		"my server":              "my_server",
		"/opt/x/été":             "_t_",
		"":                       "cmd",
		"/":                      "cmd",
		strings.Repeat("a", 100): strings.Repeat("a", 64),
		"node=index.js":          "node_index.js",
	}
	for in, want := range tests {
		got := marker.NameFor(in)
		if got != want {
			t.Errorf("NameFor(%q) = %q, want %q", in, got, want)
		}
		if err := (probe.Stamp{Name: got}).Validate(); err != nil {
			t.Errorf("NameFor(%q) = %q: %v", in, got, err)
		}
	}
}

func TestRunID(t *testing.T) {
	a, b := marker.NewRunID(), marker.NewRunID()
	if a == b {
		t.Errorf("two run ids alike: %s", a)
	}
	for _, id := range []string{a, b} {
		if err := (probe.Stamp{RunID: id}).Validate(); err != nil {
			t.Error(err)
		}
	}
	for _, bad := range []string{"abc", strings.Repeat("A", 32), strings.Repeat("g", 32), strings.Repeat("a", 33)} {
		if err := (probe.Stamp{RunID: bad}).Validate(); err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("run id %q: %v; want an error naming it", bad, err)
		}
	}
}

func TestValidateMarkers(t *testing.T) {
	for _, m := range []probe.Markers{{}, seed, {MarkerVar: "_A1"}} {
		if err := m.Validate(); err != nil {
			t.Errorf("%+v: %v", m, err)
		}
	}
	for _, m := range []probe.Markers{{MarkerVar: "A=B"}, {NameVar: "1A"}, {MarkerVar: "X", NameVar: "X"}, {MarkerVar: "TETHER_NAME"}, {NameVar: "A B"}} {
		if err := m.Validate(); err == nil {
			t.Errorf("%+v: no error", m)
		}
	}
}
