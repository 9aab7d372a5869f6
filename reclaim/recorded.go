package reclaim

import (
	"os"
	"slices"

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
	fs := proc.Host()
	var out []int
	for _, rec := range records(f) {
		for _, m := range rec.Members {
			if fs.Alive(proc.Member(m)) && !slices.Contains(found, m.PID) && !slices.Contains(out, m.PID) {
				out = append(out, m.PID)
			}
		}
	}
	if len(out) > 0 {
		trace.Printf("scan: %d more by their runs' records", len(out))
	}
	return out
}

// pruneOver removes the records of runs that are over: their
// supervisor and every member gone (tether killed with SIGKILL, its
// watchdog having ended the rest). Only a reclaim that is no dry run
// does, and only records of this PID namespace (records).
func pruneOver(f Filter) {
	fs := proc.Host()
	for _, rec := range records(f) {
		if fs.Alive(proc.Member(rec.Supervisor)) {
			continue
		}
		over := true
		for _, m := range rec.Members {
			if fs.Alive(proc.Member(m)) {
				over = false
				break
			}
		}
		if over {
			registry.Prune(rec.RunID, rec.Owner)
		}
	}
}

// pruneEnded removes the records of the runs this reclaim ended whole:
// their supervisor, which would have, is gone.
func pruneEnded(results []Result, f Filter) {
	ended := map[string]bool{}
	for _, r := range results {
		if r.RunID == "" || !r.Selected {
			continue
		}
		if _, ok := ended[r.RunID]; !ok {
			ended[r.RunID] = true
		}
		ended[r.RunID] = ended[r.RunID] && r.ended()
	}
	fs := proc.Host()
	for _, rec := range records(f) {
		if !ended[rec.RunID] || fs.Alive(proc.Member(rec.Supervisor)) {
			continue
		}
		registry.Prune(rec.RunID, rec.Owner)
	}
}
