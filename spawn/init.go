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
// main. When Supervise started this program again as its watchdog, or as
// the init of a contained run's PID namespace ([Options.Reexec]), Init
// runs that and exits; otherwise it returns at once, having done nothing.
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
