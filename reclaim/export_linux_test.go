package reclaim

// What the tests reach inside the package: the steps of a reclaim taken
// one at a time, so that a PID can be recycled between them.

// ForgetIdentity makes p look as it would on a kernel without pidfs, so
// that tests reach the start-time check behind it.
func ForgetIdentity(p *Process) { p.identity = 0 }

// Find is the finding step of Reclaim.
func Find(f Filter) ([]Process, error) {
	fd, err := find(f)
	return fd.procs, err
}

// Terminate is the signalling step of Reclaim.
func Terminate(procs []Process, f Filter, act Action) []Result {
	return terminateAll(procs, f, act)
}

// Holder is a process seen holding a listener.
type Holder struct {
	PID      int
	Listener Listener
}

// Holders looks up who serves the ports.
func Holders(ports []uint16) ([]Holder, error) {
	_, hs, err := lookupPorts(ports)
	out := make([]Holder, len(hs))
	for i, h := range hs {
		out[i] = Holder{PID: h.pid, Listener: h.listener}
	}
	return out, err
}

// Served is one check of a wait, whose cost is measured alone.
func Served(ports []uint16, owners []int) (map[uint16]bool, error) { return served(ports, owners) }
