package spawn_test

import (
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/tetherproc/tether/internal/proctest"
	"github.com/tetherproc/tether/spawn"
)

func TestMain(m *testing.M) {
	// The test binary stands in for tether as the watchdog's program.
	if len(os.Args) > 1 && os.Args[1] == spawn.WatchdogArg {
		os.Exit(spawn.WatchdogMain(os.Args[2:]))
	}
	proctest.Helper(map[string]func(){"pdeathsig": pdeathsigHelper})
	// The spawner goroutine never returns, by design.
	os.Exit(proctest.Run(m, goleak.IgnoreTopFunction("github.com/tetherproc/tether/spawn.spawnerLoop")))
}
