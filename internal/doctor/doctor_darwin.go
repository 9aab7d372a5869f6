package doctor

import (
	"os"

	"github.com/tetherproc/tether/internal/lsof"
	"github.com/tetherproc/tether/internal/proc"
)

// Check tries what tether relies on macOS: what it can read of a
// process's environment (its identity), and what covers a run.
func Check() []Finding {
	return []Finding{
		{Name: "parent-death signal", Detail: "macOS has none: tether run covers its command with the watchdog should tether be killed; --exec is refused"},
		own(), others(),
		{Name: "zombies", Detail: "a zombie's environment is gone: unverifiable"},
		lsofFinding(),
		{Name: "--contain", Detail: "cgroups and PID namespaces are Linux's: --contain is refused"},
	}
}

// own reads tether's own environment, as check reads any process's.
func own() Finding {
	f := Finding{Name: "your processes"}
	if _, err := proc.Host().Environ(os.Getpid()); err != nil {
		f.Detail = "environment unreadable (kern.procargs2): " + err.Error()
		return f
	}
	f.OK, f.Detail = true, "environment readable (kern.procargs2): verifiable"
	return f
}

// others reads launchd's (PID 1) environment: root's, so readable only
// where the kernel gives other users' environments away (to root), and
// where launchd is restricted (CS_RESTRICT, with System Integrity
// Protection on) not even then.
func others() Finding {
	f := Finding{Name: "other users' and restricted processes"}
	if _, err := proc.Host().Environ(1); err != nil {
		f.Detail = "environment withheld (launchd's: " + err.Error() + "): unverifiable, never signalled"
		return f
	}
	f.OK, f.Detail = true, "environment readable (launchd's is): verifiable"
	return f
}

// lsofFinding is the fallback of a port lookup that libproc refuses.
func lsofFinding() Finding {
	f := Finding{Name: "lsof"}
	if path, err := lsof.Path(); err == nil {
		f.OK, f.Detail = true, path+": the fallback of --port where libproc is refused"
	} else {
		f.Detail = "not found in /usr/sbin or PATH: --port relies on libproc alone"
	}
	return f
}
