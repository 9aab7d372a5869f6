package cgroup

import (
	"strings"
	"testing"

	"github.com/tetherproc/tether/marker"
)

func TestRunOf(t *testing.T) {
	const id = "0123456789abcdef0123456789abcdef"
	tests := []struct {
		path, id, group string
	}{
		{"/tether-" + id, id, "/tether-" + id},
		{"/user.slice/app.slice/tether-" + id, id, "/user.slice/app.slice/tether-" + id},
		{"/a/tether-" + id + "/made-by-the-command/deeper", id, "/a/tether-" + id},
		{"/tether-" + id + "/tether-fedcba9876543210fedcba9876543210", "fedcba9876543210fedcba9876543210", "/tether-" + id + "/tether-fedcba9876543210fedcba9876543210"},
		{"/", "", ""},
		{"", "", ""},
		{"/tether-short", "", ""},
		{"/tether-" + id + "x", "", ""},
		{"/tether-0123456789ABCDEF0123456789ABCDEF", "", ""},
		{"/system.slice/nginx.service", "", ""},
	}
	for _, tt := range tests {
		id, group, ok := RunOf(tt.path)
		if id != tt.id || group != tt.group || ok != (tt.id != "") {
			t.Errorf("RunOf(%q) = %q, %q, %v; want %q, %q", tt.path, id, group, ok, tt.id, tt.group)
		}
	}
	// The name holds the run's token, never the run id.
	if n := Name(id); n != "tether-"+Token(id) || strings.Contains(n, id) || !marker.IsRunID(Token(id)) {
		t.Errorf("Name(%q) = %q, want tether- and a token of 32 hex digits", id, n)
	}
	if Token(id) == Token("fedcba9876543210fedcba9876543210") {
		t.Error("two run ids have one token")
	}
}
