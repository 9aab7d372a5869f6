package engines

// Read is what a caller has read of a process already (checking it, say),
// so that finding its manager does not read it again. A zero field is
// read when it is needed.
type Read struct {
	PPID int
	Argv []string
	// Cgroup is its cgroup v2 path. The cgroup file is read again all
	// the same where other hierarchies are mounted beside v2: their
	// lines name the containers there.
	Cgroup string
}
