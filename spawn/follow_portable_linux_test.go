//go:build linux && tetherportable

package spawn_test

import (
	"context"
	"os/exec"
	"testing"

	"go.uber.org/goleak"

	"github.com/tetherproc/tether/spawn"
)

// On the portable path Supervise follows its caller with a watcher of
// its own (a kqueue thread on macOS, a poll here), which it stops when it
// returns: a library caller running many commands leaks nothing.
func TestSuperviseStopsFollowingParent(t *testing.T) {
	before := goleak.IgnoreCurrent()
	for i := 0; i < 3; i++ {
		if ended, err := spawn.Supervise(context.Background(), exec.Command("/bin/true"), spawn.Options{}); !ended.Success() || err != nil {
			t.Fatalf("Supervise: %v, %v", ended, err)
		}
	}
	// os/signal's loop outlives its first use by design.
	goleak.VerifyNone(t, before, goleak.IgnoreTopFunction("os/signal.signal_recv"))
}
