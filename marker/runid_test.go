package marker_test

import (
	"strings"
	"testing"

	"github.com/tetherproc/tether/marker"
)

// IsRunID and ValidateRunID agree on every id.
func TestIsRunID(t *testing.T) {
	for id, want := range map[string]bool{
		"0123456789abcdef0123456789abcdef":  true,
		"0123456789ABCDEF0123456789ABCDEF":  false,
		"0123456789abcdef0123456789abcde":   false,
		"0123456789abcdef0123456789abcdef0": false,
		"../../etc/passwd0123456789abcdef":  false,
		"":                                  false,
	} {
		if got := marker.IsRunID(id); got != want {
			t.Errorf("IsRunID(%q) = %v, want %v", id, got, want)
		}
		if err := marker.ValidateRunID(id); (err == nil) != want {
			t.Errorf("ValidateRunID(%q) = %v, want ok %v", id, err, want)
		}
	}
}

func TestRunID(t *testing.T) {
	a, b := marker.NewRunID(), marker.NewRunID()
	if a == b {
		t.Errorf("two run ids alike: %s", a)
	}
	for _, id := range []string{a, b} {
		if err := (marker.Stamp{RunID: id}).Validate(); err != nil {
			t.Error(err)
		}
	}
	for _, bad := range []string{"abc", strings.Repeat("A", 32), strings.Repeat("g", 32), strings.Repeat("a", 33)} {
		if marker.IsRunID(bad) {
			t.Errorf("IsRunID(%q) = true", bad)
		}
		if err := marker.ValidateRunID(bad); err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("run id %q: %v; want an error naming it", bad, err)
		}
		if err := (marker.Stamp{RunID: bad}).Validate(); err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("run id %q: %v; want an error naming it", bad, err)
		}
	}
}
