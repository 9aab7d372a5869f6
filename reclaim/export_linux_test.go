package reclaim

import (
	"context"

	"github.com/tetherproc/tether/internal/kill"
	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/sockets"
)

// What the tests reach inside the package: the steps of a reclaim taken
// one at a time, so that a PID can be recycled between them.

// Held is the snapshot step of Reclaim, as it takes it to signal: the
// processes found, each held since before its check.
type Held struct {
	s     *snapshot
	Procs []Process
}

// FindHeld takes the snapshot of Reclaim.
func FindHeld(f Filter) (*Held, error) {
	s, err := take(f, true, true)
	if err != nil {
		return nil, err
	}
	return &Held{s: s, Procs: s.procs}, nil
}

// Terminate is the selection and signalling steps of Reclaim over the
// processes held.
func (h *Held) Terminate(f Filter, act Action) []Result {
	defer h.s.close()
	results, _ := h.s.selection(f, act)
	h.s.terminateAll(context.Background(), results, f, act)
	return results
}

// Find is the snapshot step of Reclaim, as a listing takes it: the
// processes found, none held, so that each is opened and checked whole
// before its signal, as one no handle could be had for is.
func Find(f Filter) ([]Process, error) {
	s, err := take(f, true, false)
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

// HoldAtMost bounds the handles a snapshot holds, for the test's life.
func HoldAtMost(t interface{ Cleanup(func()) }, n int) {
	was := maxHeld
	maxHeld = func() int { return n }
	t.Cleanup(func() { maxHeld = was })
}

// HeldCount is how many processes the snapshot holds.
func (h *Held) HeldCount() int { return len(h.s.handles) }
