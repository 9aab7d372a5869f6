package spawn

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
	// (ChildOptions.Contain), where the machine allows it.
	Cgroups bool
	// NoPIDReuse: a process is signalled through a handle (a pidfd)
	// opened before its identity was checked, so a PID reused in
	// between is never hit. Without it, kill(2) follows a fresh check of
	// the PID's start time.
	NoPIDReuse bool
}
