package reclaim

import (
	"context"
	"fmt"
	"time"

	"github.com/tetherproc/tether/internal/sockets"
)

// Reclaim finds the processes f is about and terminates those it
// selects, in one pass: one snapshot (the processes, each checked; the
// run records; with f.Ports, the ports' sockets and holders), one
// selection (each process decided once, the selected ones' runs made
// whole), then the signals, and the report. Each process is signalled
// through a handle opened before its identity is checked again (a pidfd
// on Linux), gets act.Grace to exit, then SIGKILL. With f.Ports, every
// holder of the ports is reported, the ones not selected as [Skipped]
// with the reason, and the port states are carried past the signals.
// The error is for bad input and an unreadable socket table.
//
// Reclaim can wait for act.Grace, then up to 10 s for SIGKILL to take
// (a process stuck in the kernel), then act.Settle for the ports. The
// end of ctx cuts that short: what is left gets SIGKILL at once, what is
// alive a second later is reported Survived, the ports are not watched
// any longer, and the Summary comes with an error that wraps ctx.Err().
func Reclaim(ctx context.Context, f Filter, act Action) (Summary, error) {
	began := time.Now()
	s, err := take(f, true, !act.DryRun)
	if err != nil {
		return Summary{}, err
	}
	defer s.close()
	results, groups := s.selection(f, act)
	s.terminateAll(ctx, results, f, act)
	if !act.DryRun {
		removeEmptied(results, groups)
		s.records.pruneOver()
	}
	sum := Summary{Results: results, Ports: s.ports}
	if len(f.Ports) > 0 && !act.DryRun {
		sum.Ports = after(sockets.Unique(f.Ports), f.Proto, s.holders, results)
		settle(ctx, sum.Ports, freed(s.ports, sum.Ports), f.Proto, act.Settle, startersOf(results), began)
	}
	sum.explainLeft()
	if err := ctx.Err(); err != nil {
		return sum, fmt.Errorf("reclaim cut short: %w", err)
	}
	return sum, nil
}

// freed are the ports that were held before the reclaim and are free
// after it.
func freed(before, after []PortState) []uint16 {
	var out []uint16
	for i, st := range after {
		if st.Free && i < len(before) && !before[i].Free {
			out = append(out, st.Port)
		}
	}
	return out
}
