package spawn

import (
	"syscall"
	"time"

	"github.com/tetherproc/tether/marker"
)

// ChildOptions is how a [Host] starts one child: its stamp (the markers
// written into its environment; its Supervisor, by default, is this
// program), its parent-death signal, how long its tree gets between TERM
// and KILL when it is stopped, and its cgroup. The zero value stamps the
// defaults, kills at once and makes no cgroup.
type ChildOptions struct {
	// Stamp is what the child's markers say; each zero field is filled
	// in: Name from the command's base name (each character outside A-Z
	// a-z 0-9 . _ - made '_'), Supervisor this program, RunID a new
	// random one (32 lowercase hex digits), PIDNamespace this program's.
	// A run id that a running child holds is refused.
	marker.Stamp
	// Markers names the marker and name variables; default TETHER and
	// TETHER_NAME.
	Markers marker.Markers
	// Signal is the child's parent-death signal; default SIGTERM.
	Signal syscall.Signal
	// Grace is how long the child's tree gets between TERM and KILL when
	// it is stopped; zero means KILL right after TERM.
	Grace time.Duration
	// Cgroup has the child born in a cgroup of its own, which no
	// descendant leaves and which is killed whole.
	Cgroup CgroupMode
}

// CgroupMode says whether a Host's child is born in a cgroup of its own.
type CgroupMode int

const (
	// NoCgroup starts the child in the program's cgroup.
	NoCgroup CgroupMode = iota
	// CgroupWhereAllowed makes the child's cgroup where the machine
	// allows it (root, or a delegated subtree, on Linux 5.7 or later),
	// and starts the child in the program's elsewhere.
	CgroupWhereAllowed
	// CgroupRequired makes the child's cgroup or fails the start.
	CgroupRequired
)

// Guarantees is what ties a [Host]'s children to the program on this
// platform and build, for a program to read (and tell its user) rather
// than assume. On Linux every field but Watchdog is true; on macOS, which
// has no parent-death signal and no cgroups, the watchdog alone ends the
// children's trees when the program is killed with SIGKILL, and a Stop
// finds a child's descendants in the process table and the strays that
// left it by the run id in their environment.
type Guarantees struct {
	// ParentDeathSignal: the kernel sends each child its Signal
	// when the program dies, however it dies.
	ParentDeathSignal bool
	// Watchdog: a watchdog process (this program started again, which
	// its main's call of [Init] allows) ends every child's tree should
	// the program die, SIGKILL included.
	Watchdog bool
	// Cgroups: a child can be born in a cgroup of its own
	// (ChildOptions.Cgroup), where the machine allows it.
	Cgroups bool
	// NoPIDReuse: a process is signalled through a handle (a pidfd)
	// opened before its identity was checked, so a PID reused in
	// between is never hit. Without it, kill(2) follows a fresh check of
	// the PID's start time.
	NoPIDReuse bool
}
