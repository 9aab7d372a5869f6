package probe

import (
	"slices"
	"testing"
)

// A title written over the argument and environment area, as nginx and
// setproctitle leave it, reads back without its padding.
func TestUnpadded(t *testing.T) {
	for _, tc := range []struct{ in, want []string }{
		{[]string{"nginx: worker process", "", "", ""}, []string{"nginx: worker process"}},
		{[]string{"nginx: worker process                   "}, []string{"nginx: worker process"}},
		{[]string{"srv", "   ", ""}, []string{"srv"}},
		{[]string{"sleep", "30"}, []string{"sleep", "30"}},
		{[]string{"echo", "a ", "b"}, []string{"echo", "a ", "b"}},
		{[]string{"", ""}, []string{}},
		{nil, nil},
	} {
		if got := unpadded(slices.Clone(tc.in)); !slices.Equal(got, tc.want) {
			t.Errorf("unpadded(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
