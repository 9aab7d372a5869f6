package marker_test

import (
	"strings"
	"testing"

	"github.com/tetherproc/tether/marker"
	"github.com/tetherproc/tether/procid"
)

// seed is another supervisor's scheme: SYSTEMPROMPT_SUBPROCESS=1 and
// MCP_SERVICE_ID=<name>, compared entry by entry.
var seed = marker.Markers{MarkerVar: "SYSTEMPROMPT_SUBPROCESS", NameVar: "MCP_SERVICE_ID"}

func TestMatch(t *testing.T) {
	tests := []struct {
		m    marker.Markers
		env  []string
		name string
		want bool
	}{
		{marker.Markers{}, []string{"TETHER=1"}, "", true},
		{marker.Markers{}, []string{"TETHER=1", "TETHER_NAME=web"}, "web", true},
		{marker.Markers{}, []string{"TETHER=0", "TETHER=1", "TETHER_NAME=web"}, "web", true},
		{marker.Markers{}, []string{"TETHER=1"}, "web", false},
		{marker.Markers{}, []string{"TETHER=1", "TETHER_NAME=web2"}, "web", false},
		{marker.Markers{}, []string{"TETHER=1", "TETHER_NAME=we"}, "web", false},
		{marker.Markers{}, []string{"TETHER=1", "TETHER_NAME=web "}, "web", false},
		{marker.Markers{}, []string{"TETHER=1", "TETHER_NAME="}, "web", false},
		{marker.Markers{}, []string{"TETHER=0"}, "", false},
		{marker.Markers{}, []string{"TETHER=11"}, "", false},
		{marker.Markers{}, []string{"TETHER=1 "}, "", false},
		{marker.Markers{}, []string{" TETHER=1"}, "", false},
		{marker.Markers{}, []string{"TETHER="}, "", false},
		{marker.Markers{}, []string{"TETHER"}, "", false},
		{marker.Markers{}, []string{"tether=1"}, "", false},
		{marker.Markers{}, []string{"XTETHER=1"}, "", false},
		{marker.Markers{}, nil, "", false},
		// The name lives in the name variable, nowhere else.
		{marker.Markers{}, []string{"TETHER=1", "MCP_SERVICE_ID=web"}, "web", false},

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
	s := marker.Stamp{Name: "web", Supervisor: procid.ID{PID: 42, StartTime: 7}, RunID: strings.Repeat("ab", 16)}
	base := []string{"PATH=/bin", "TETHER=1", "TETHER_NAME=old", "TETHER_SUPERVISOR=1:1", "TETHER_RUN_ID=x", "TETHERED=yes"}
	env := (marker.Markers{}).Environ(base, s)
	want := []string{"PATH=/bin", "TETHERED=yes", "TETHER=1", "TETHER_NAME=web", "TETHER_SUPERVISOR=42:7", "TETHER_RUN_ID=" + s.RunID}
	if strings.Join(env, "\n") != strings.Join(want, "\n") {
		t.Errorf("Environ = %q, want %q", env, want)
	}
	if !(marker.Markers{}).Match(env, "web") || (marker.Markers{}).Match(env, "old") {
		t.Error("the stamp does not match its own name only")
	}
	if base[2] != "TETHER_NAME=old" {
		t.Error("Environ modified its input")
	}
	env = seed.Environ(nil, s)
	if !seed.Match(env, "web") || (marker.Markers{}).Match(env, "") {
		t.Errorf("seed stamp %q", env)
	}
}

func TestValidateMarkers(t *testing.T) {
	for _, m := range []marker.Markers{{}, seed, {MarkerVar: "_A1"}} {
		if err := m.Validate(); err != nil {
			t.Errorf("%+v: %v", m, err)
		}
	}
	for _, m := range []marker.Markers{{MarkerVar: "A=B"}, {NameVar: "1A"}, {MarkerVar: "X", NameVar: "X"}, {MarkerVar: "TETHER_NAME"}, {NameVar: "A B"}} {
		if err := m.Validate(); err == nil {
			t.Errorf("%+v: no error", m)
		}
	}
}
