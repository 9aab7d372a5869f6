package reclaim

import (
	"os"

	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/ptree"
	"github.com/tetherproc/tether/internal/registry"
	"github.com/tetherproc/tether/internal/trace"
	"github.com/tetherproc/tether/procid"
)

// runRecords are the run records one reclaim or listing reads, each
// user's once: those its filter may read when the snapshot is taken, and
// a supervisor's owner's when a process is to be ended through it. The
// same call never reads a user's records twice.
type runRecords struct {
	// scope are the records the filter may read: the caller's own, and
	// with AnyUser as root every user's; only those whose PIDs are this
	// /proc's (written in this PID namespace).
	scope []registry.Record
	// byUID are the records read, by owner, in any namespace.
	byUID map[int][]registry.Record
	ns    uint64
}

// readRecords reads the records f may read.
func readRecords(f Filter) *runRecords {
	rs := &runRecords{byUID: map[int][]registry.Record{}}
	rs.ns, _ = proc.Host().TableNamespace()
	var all []registry.Record
	if f.AnyUser && os.Getuid() == 0 {
		all = registry.ReadAll()
		for _, rec := range all {
			rs.byUID[rec.Owner] = append(rs.byUID[rec.Owner], rec)
		}
	} else {
		all = registry.Read(os.Getuid())
	}
	rs.byUID[os.Getuid()] = ownedBy(os.Getuid(), all)
	for _, rec := range all {
		if rec.InNamespace(rs.ns) {
			rs.scope = append(rs.scope, rec)
		} else {
			trace.Printf("run record %s: written in another PID namespace; not read here", rec.RunID)
		}
	}
	return rs
}

// ownedBy are the records of recs that uid owns.
func ownedBy(uid int, recs []registry.Record) []registry.Record {
	out := []registry.Record{} // read, though there may be none
	for _, rec := range recs {
		if rec.Owner == uid {
			out = append(out, rec)
		}
	}
	return out
}

// of are uid's records, read the first time they are asked for.
func (rs *runRecords) of(uid int) []registry.Record {
	recs, ok := rs.byUID[uid]
	if !ok {
		recs = registry.Read(uid)
		rs.byUID[uid] = recs
	}
	return recs
}

// living are the members of the records in scope that are alive and not
// among found: renamed ones, which the scan of environments did not
// find; their record says whose they are, by PID and start time, also
// once their supervisor is gone.
func (rs *runRecords) living(found []int) []int {
	var all []procid.ID
	for _, rec := range rs.scope {
		all = append(all, rec.Members...)
	}
	seen := map[int]bool{}
	for _, pid := range found {
		seen[pid] = true
	}
	var out []int
	for _, m := range ptree.Living(proc.Host(), all) {
		if !seen[m.PID] {
			seen[m.PID] = true
			out = append(out, m.PID)
		}
	}
	if len(out) > 0 {
		trace.Printf("scan: %d more by their runs' records", len(out))
	}
	return out
}

// members are the members the records in scope list for run id.
func (rs *runRecords) members(id string) []procid.ID {
	var out []procid.ID
	for _, rec := range rs.scope {
		if rec.RunID == id {
			out = append(out, rec.Members...)
		}
	}
	return out
}

// pruneOver removes the records in scope of runs that are over now:
// their supervisor and every member gone (tether killed with SIGKILL,
// its watchdog having ended the rest; or the run this reclaim ended
// whole). A run is not over because a process that carries its id was
// ended: anyone can carry a run id. They are the records read before the
// signals, looked at again for who is alive: a run whose supervisor
// lives writes its own, and one whose supervisor is gone has no one
// left to write it. Only a reclaim that is no dry run prunes.
func (rs *runRecords) pruneOver() {
	var all []procid.ID
	for _, rec := range rs.scope {
		all = append(all, rec.Supervisor)
		all = append(all, rec.Members...)
	}
	alive := map[procid.ID]bool{}
	for _, m := range ptree.Living(proc.Host(), all) {
		alive[m] = true
	}
	for _, rec := range rs.scope {
		over := !alive[rec.Supervisor]
		for _, m := range rec.Members {
			over = over && !alive[m]
		}
		if over {
			registry.Prune(rec.RunID, rec.Owner)
		}
	}
}
