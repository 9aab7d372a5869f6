package reclaim

import (
	"context"
	"github.com/tetherproc/tether/internal/kill"
	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/sockets"
)

// What the tests reach inside the package: the steps of a reclaim taken
// one at a time, so that a PID can be recycled between them.

// ForgetIdentity makes p look as it would on a kernel without pidfs, so
// that tests reach the start-time check behind it.
func ForgetIdentity(p *Process) { p.identity = 0 }

// Find is the snapshot step of Reclaim: the processes it found.
func Find(f Filter) ([]Process, error) {
	s, err := take(f, true)
	if err != nil {
		return nil, err
	}
	return s.procs, nil
}

// Terminate is the selection and signalling steps of Reclaim, over procs
// as Find found them (and as the test changed them since).
func Terminate(procs []Process, f Filter, act Action) []Result {
	s := &snapshot{procs: procs, records: readRecords(f), protected: kill.Protected(proc.Host())}
	results, _ := s.selection(f, act)
	s.terminateAll(context.Background(), results, f, act)
	return results
}

// Holders looks up who serves the ports.
func Holders(ports []uint16) ([]sockets.Holder, error) {
	_, hs, err := sockets.Lookup(ports...)
	return hs, err
}
