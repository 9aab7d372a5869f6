package spawn

// Containment is how a supervised tree is kept together beyond what the
// markers, the subreaper and the watchdog do: in a cgroup v2 group of its
// own, ended with cgroup.kill, or in a PID namespace of its own, whose
// init (tether's, not the command) takes every process in it down when
// it dies. A [Host]'s child takes a cgroup alone (ChildOptions.Contain).
type Containment string

const (
	NoContainment       Containment = ""
	ContainAuto         Containment = "auto" // a cgroup where one can be made, else a PID namespace (a Host's child: else none)
	ContainCgroup       Containment = "cgroup"
	ContainPIDNamespace Containment = "pidns"
)
