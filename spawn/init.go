package spawn

import (
	"os"

	"github.com/tetherproc/tether/internal/cgroup"
	"github.com/tetherproc/tether/internal/pidns"
	"github.com/tetherproc/tether/internal/trace"
	"github.com/tetherproc/tether/internal/watchdog"
)

// Init is the one entry point of this program's re-executed helpers, as
// moby's reexec.Init and runc's libcontainer.Init are: call it first in
// main. Its call is what allows Supervise and a Host to start this
// program again: as the watchdog that ends a run's tree should its
// supervisor be killed with SIGKILL, and as the init of a contained run's
// PID namespace. When this process is one of those, Init runs it and
// exits; otherwise it returns at once, having noted that it was called.
func Init() {
	markInit()
	if len(os.Args) < 2 {
		return
	}
	switch os.Args[1] {
	case watchdog.Arg:
		// A helper traces when its supervisor did: the variable is
		// in its environment then.
		trace.FromEnv()
		os.Exit(watchdog.Main(os.Args[2:]))
	case pidns.Arg:
		trace.FromEnv()
		os.Exit(pidns.Main(os.Args[2:]))
	case cgroup.EnterArg:
		os.Exit(cgroup.EnterMain(os.Args[2:]))
	}
}
