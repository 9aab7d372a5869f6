package reclaim

import (
	"os"
	"slices"

	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/registry"
	"github.com/tetherproc/tether/internal/trace"
)

// records are the run records f may read: the caller's own, and with
// AnyUser as root, every user's.
func records(f Filter) []registry.Record {
	if f.AnyUser && os.Getuid() == 0 {
		return registry.ReadAll()
	}
	return registry.Read(os.Getuid())
}

// recorded are the members of runs' records that the scan of
// environments did not find (renamed: their record says whose they
// are, by PID and start time, also once their supervisor is gone). The
// records of runs that are over (their supervisor and every member
// gone) are pruned on the way.
func recorded(f Filter, found []int) []int {
	fs := proc.Host()
	var out []int
	for _, rec := range records(f) {
		live := 0
		for _, m := range rec.Members {
			st, err := fs.Stat(m.PID)
			if err != nil || st.StartTime != m.StartTime || st.Zombie() {
				continue
			}
			live++
			if !slices.Contains(found, m.PID) && !slices.Contains(out, m.PID) {
				out = append(out, m.PID)
			}
		}
		if live == 0 && !alive(fs, proc.Member(rec.Supervisor)) {
			registry.Prune(rec.RunID, rec.Owner)
		}
	}
	if len(out) > 0 {
		trace.Printf("scan: %d more by their runs' records", len(out))
	}
	return out
}

// alive reports whether m is still the process it names.
func alive(fs proc.FS, m proc.Member) bool {
	st, err := fs.Stat(m.PID)
	return err == nil && st.StartTime == m.StartTime && !st.Zombie()
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
		if !ended[rec.RunID] || alive(fs, proc.Member(rec.Supervisor)) {
			continue
		}
		registry.Prune(rec.RunID, rec.Owner)
	}
}
