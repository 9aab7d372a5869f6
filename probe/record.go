package probe

import (
	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/registry"
	"github.com/tetherproc/tether/procid"
)

// recordStamp finds the run whose record names p by PID and start time,
// for a process whose own environment does not say whose it is (a
// server that wrote its title over it): the stamp the run's command was
// given. Only the records of p's own real uid are read, and root's,
// which only root can write: a record names no process its writer
// could not have signalled itself.
func recordStamp(p proc.Process) ([]string, *Container, bool) {
	if p.UID < 0 {
		return nil, nil, false
	}
	recs := registry.Read(p.UID)
	if p.UID != 0 {
		recs = append(recs, registry.Read(0)...)
	}
	m := procid.ID{PID: p.PID, StartTime: p.StartTime}
	ns, _ := tableNamespace()
	for _, rec := range recs {
		if rec.Honours(p.UID) && rec.InNamespace(ns) && rec.Has(m) {
			return rec.Stamp, &Container{Kind: ByRecord, RunID: rec.RunID}, true
		}
	}
	return nil, nil, false
}
