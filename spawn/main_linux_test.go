package spawn_test

import (
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/tetherproc/tether/internal/proctest"
)

func TestMain(m *testing.M) {
	proctest.Helper(nil)
	// The spawner goroutine never returns, by design.
	os.Exit(proctest.Run(m, goleak.IgnoreTopFunction("github.com/tetherproc/tether/spawn.spawnerLoop")))
}
