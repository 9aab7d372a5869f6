package spawn_test

import (
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/tetherproc/tether/internal/proctest"
	"github.com/tetherproc/tether/spawn"
)

func TestMain(m *testing.M) {
	// The test binary stands in for tether as the watchdog's program and
	// a contained run's init.
	spawn.Init()
	proctest.Helper()
	// The spawner goroutine never returns, by design.
	os.Exit(proctest.Run(m, goleak.IgnoreTopFunction("github.com/tetherproc/tether/spawn.spawnerLoop")))
}
