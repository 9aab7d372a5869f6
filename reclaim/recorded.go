package reclaim

import (
	"os"

	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/registry"
	"github.com/tetherproc/tether/internal/trace"
)

// records are the run records f may read: the caller's own, and with
// AnyUser as root, every user's; only those whose PIDs are this /proc's
// (written in this PID namespace).
func records(f Filter) []registry.Record {
	var all []registry.Record
	if f.AnyUser && os.Getuid() == 0 {
		all = registry.ReadAll()
	} else {
		all = registry.Read(os.Getuid())
	}
	ns, _ := proc.Host().TableNamespace()
	out := all[:0]
	for _, rec := range all {
		if rec.InNamespace(ns) {
			out = append(out, rec)
		} else {
			trace.Printf("run record %s: written in another PID namespace; not read here", rec.RunID)
		}
	}
	return out
}

// recorded are the members of runs' records that the scan of
// environments did not find (renamed: their record says whose they
// are, by PID and start time, also once their supervisor is gone).
func recorded(f Filter, found []int) []int {
	var all []proc.Member
	for _, rec := range records(f) {
		for _, m := range rec.Members {
			all = append(all, proc.Member(m))
		}
	}
	seen := map[int]bool{}
	for _, pid := range found {
		seen[pid] = true
	}
	var out []int
	for _, m := range proc.Host().Living(all) {
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

// pruneOver removes the records of runs that are over: their
// supervisor and every member gone (tether killed with SIGKILL, its
// watchdog having ended the rest; or the run this reclaim ended whole).
// A run is not over because a process that carries its id was ended:
// anyone can carry a run id. Only a reclaim that is no dry run
// does, and only records of this PID namespace (records).
func pruneOver(f Filter) {
	recs := records(f)
	var all []proc.Member
	for _, rec := range recs {
		all = append(all, proc.Member(rec.Supervisor))
		for _, m := range rec.Members {
			all = append(all, proc.Member(m))
		}
	}
	alive := map[proc.Member]bool{}
	for _, m := range proc.Host().Living(all) {
		alive[m] = true
	}
	for _, rec := range recs {
		over := !alive[proc.Member(rec.Supervisor)]
		for _, m := range rec.Members {
			over = over && !alive[proc.Member(m)]
		}
		if over {
			registry.Prune(rec.RunID, rec.Owner)
		}
	}
}
