package probe

// Container is what tied a process without markers of its own (cleared,
// or written over by a new process title) to its run: the run's cgroup,
// the tethered init of its PID namespace, or the record its run wrote of
// its members by PID and start time. Only the field of its Kind is set.
type Container struct {
	Kind ContainerKind
	// Cgroup is the run's cgroup as /proc/PID/cgroup names it
	// ("/…/tether-TOKEN"), for InCgroup.
	Cgroup string
	// Init is the PID of the tethered init of the process's PID
	// namespace, as the reader's /proc numbers it, for InPIDNamespace.
	Init int
	// RunID is the run whose record lists the process, for ByRecord.
	RunID string
}

// ContainerKind says what a [Container] is.
type ContainerKind int

const (
	// InCgroup: the process is in its run's cgroup (tether run
	// --contain, or a Host's child with a cgroup of its own).
	InCgroup ContainerKind = iota + 1
	// InPIDNamespace: the process is in a PID namespace whose init is
	// tethered, and which dies with it (tether run --contain=pidns).
	InPIDNamespace
	// ByRecord: the process is a member its run's record lists by PID
	// and start time (a server that renamed itself).
	ByRecord
)
