package reclaim_test

import (
	"syscall"
	"testing"

	"github.com/tetherproc/tether/reclaim"
)

// A step's text names the signal, where it went, or the engine.
func TestSentString(t *testing.T) {
	for _, tc := range []struct {
		s    reclaim.Sent
		text string
	}{
		{reclaim.Sent{Signal: syscall.SIGTERM}, "TERM"},
		{reclaim.Sent{Signal: syscall.SIGKILL, ToSupervisor: true}, "KILL (to its supervisor)"},
		{reclaim.Sent{Engine: "podman"}, "stopped through podman"},
	} {
		if got := tc.s.String(); got != tc.text {
			t.Errorf("%+v: String %q, want %q", tc.s, got, tc.text)
		}
	}
}
