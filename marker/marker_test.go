package marker

import "testing"

func TestIsRunID(t *testing.T) {
	for id, want := range map[string]bool{
		"0123456789abcdef0123456789abcdef":  true,
		"0123456789ABCDEF0123456789ABCDEF":  false,
		"0123456789abcdef0123456789abcde":   false,
		"0123456789abcdef0123456789abcdef0": false,
		"../../etc/passwd0123456789abcdef":  false,
		"":                                  false,
	} {
		if got := IsRunID(id); got != want {
			t.Errorf("IsRunID(%q) = %v, want %v", id, got, want)
		}
	}
}
