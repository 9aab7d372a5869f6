package marker_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tetherproc/tether/marker"
)

// ValidateName and Stamp.Validate accept the same names and say, of a
// bad one, what is wrong and with which value.
func TestValidateName(t *testing.T) {
	for _, ok := range []string{"a", "web", "files", "my-server.v2_1", strings.Repeat("x", 64)} {
		if err := marker.ValidateName(ok); err != nil {
			t.Errorf("name %q: %v", ok, err)
		}
		if err := (marker.Stamp{Name: ok}).Validate(); err != nil {
			t.Errorf("name %q: %v", ok, err)
		}
	}
	for _, bad := range []string{"a=b", "a b", "a/b", "é", "a\x00", strings.Repeat("x", 65)} {
		err := marker.ValidateName(bad)
		if serr := (marker.Stamp{Name: bad}).Validate(); fmt.Sprint(serr) != fmt.Sprint(err) {
			t.Errorf("name %q: Stamp.Validate says %v, ValidateName %v", bad, serr, err)
		}
		if err == nil {
			t.Errorf("name %q: no error", bad)
		} else if !strings.Contains(err.Error(), "invalid name") || !strings.Contains(err.Error(), fmt.Sprintf("%q", bad)) {
			t.Errorf("name %q: %v: does not say what is wrong, with which value", bad, err)
		}
	}
	if err := marker.ValidateName(""); err == nil || !strings.Contains(err.Error(), `invalid name "": empty`) {
		t.Errorf("empty name: %v; want it said to be empty", err)
	}
	if err := (marker.Stamp{}).Validate(); err != nil {
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
		if err := (marker.Stamp{Name: got}).Validate(); err != nil {
			t.Errorf("NameFor(%q) = %q: %v", in, got, err)
		}
	}
}
