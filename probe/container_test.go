package probe_test

import (
	"encoding/json"
	"testing"

	"github.com/tetherproc/tether/probe"
)

// A container is a value in Go and the text tether check has always
// written in JSON, read back as the same value.
func TestContainerText(t *testing.T) {
	for _, tc := range []struct {
		c    probe.Container
		text string
	}{
		{probe.Container{Kind: probe.InCgroup, Cgroup: "/system.slice/tether-0123456789abcdef"}, "cgroup:/system.slice/tether-0123456789abcdef"},
		{probe.Container{Kind: probe.InPIDNamespace, Init: 4242}, "pidns:init=4242"},
		{probe.Container{Kind: probe.ByRecord, RunID: "0123456789abcdef0123456789abcdef"}, "record:0123456789abcdef0123456789abcdef"},
	} {
		b, err := json.Marshal(probe.Report{PID: 9, Container: &tc.c})
		if err != nil {
			t.Fatal(err)
		}
		var back probe.Report
		if err := json.Unmarshal(b, &back); err != nil || back.Container == nil || *back.Container != tc.c {
			t.Errorf("%s: read back as %+v, %v", b, back.Container, err)
		}
		var raw map[string]any
		_ = json.Unmarshal(b, &raw)
		if raw["container"] != tc.text || tc.c.String() != tc.text {
			t.Errorf("%+v: JSON %v, String %q; want %q", tc.c, raw["container"], tc.c.String(), tc.text)
		}
	}
	b, _ := json.Marshal(probe.Report{PID: 9})
	var raw map[string]any
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	if _, ok := raw["container"]; ok {
		t.Errorf("no container, yet JSON %s", b)
	}
	for _, bad := range []string{`"cgroup:"`, `"pidns:init=0"`, `"pidns:init=x"`, `"record:"`, `"elsewhere"`} {
		var c probe.Container
		if err := json.Unmarshal([]byte(bad), &c); err == nil {
			t.Errorf("%s read as %+v", bad, c)
		}
	}
	if _, err := json.Marshal(probe.Container{}); err == nil {
		t.Error("a container of no kind marshalled")
	}
}
