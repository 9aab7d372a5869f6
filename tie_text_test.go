package main

import (
	"testing"

	"github.com/tetherproc/tether/probe"
)

// A container's text names its kind and the one field of it; a
// container of no kind has none.
func TestTieText(t *testing.T) {
	for _, tc := range []struct {
		c    probe.Container
		text string
	}{
		{probe.Container{Kind: probe.InCgroup, Cgroup: "/system.slice/tether-0123456789abcdef"}, "cgroup:/system.slice/tether-0123456789abcdef"},
		{probe.Container{Kind: probe.InPIDNamespace, Init: 4242}, "pidns:init=4242"},
		{probe.Container{Kind: probe.ByRecord, RunID: "0123456789abcdef0123456789abcdef"}, "record:0123456789abcdef0123456789abcdef"},
		{probe.Container{}, ""},
	} {
		if got := tieText(tc.c); got != tc.text {
			t.Errorf("%+v: %q, want %q", tc.c, got, tc.text)
		}
	}
}
