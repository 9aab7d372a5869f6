package reclaim

import (
	"path/filepath"
	"slices"
	"time"

	"github.com/tetherproc/tether/internal/cgroup"
	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/trace"
	"github.com/tetherproc/tether/probe"
	"github.com/tetherproc/tether/procid"
)

// contained are the members of contained runs' cgroups that the scan of
// environments did not find (renamed, env-cleared): their cgroup says
// whose they are, also once their supervisor is gone.
func contained(found []int) []int {
	h, err := cgroup.Host()
	if err != nil {
		return nil
	}
	var out []int
	for _, dir := range h.Runs() {
		for _, m := range h.Members(proc.Host(), dir) {
			if !slices.Contains(found, m.PID) && !slices.Contains(out, m.PID) {
				out = append(out, m.PID)
			}
		}
	}
	if len(out) > 0 {
		trace.Printf("scan: %d more in the cgroups of contained runs", len(out))
	}
	return out
}

// removeEmptied removes the cgroups of contained runs that this reclaim
// left empty: their supervisor, which would have, is gone. They are the
// groups its ended results were found by, and those of the runs it
// ended whole (runGroups, as cgroupMembers takes them, read from their
// members' /proc/PID/cgroup before the signals): a member that
// kept its markers names no group of its own.
func removeEmptied(results []Result, runGroups []string) {
	h, err := cgroup.Host()
	if err != nil {
		return
	}
	groups := runGroups
	for _, r := range results {
		if c := r.Container; r.ended() && c != nil && c.Kind == probe.InCgroup {
			groups = append(groups, c.Cgroup)
		}
	}
	done := map[string]bool{}
	for _, c := range groups {
		dir := groupDir(h, c)
		if dir == "" || done[dir] {
			continue
		}
		done[dir] = true
		if !cgroup.Populated(dir) {
			if err := cgroup.Remove(dir, time.Second); err != nil {
				trace.Printf("reclaim: %v", err)
			} else {
				trace.Printf("reclaim: removed the emptied cgroup %s", dir)
			}
		}
	}
}

// groupDir is the directory of a run's group at path, as /proc names it
// (never a path from a record, which its owner could point anywhere): ""
// unless it is in the hierarchy and named for a run.
func groupDir(h cgroup.Hierarchy, path string) string {
	if path == "" || path != filepath.Clean(path) {
		return ""
	}
	dir := h.Dir(path)
	if dir == "" {
		return ""
	}
	if _, _, ok := cgroup.RunOf("/" + filepath.Base(dir)); !ok {
		return ""
	}
	return dir
}

// cgroupMembers are the members of the run cgroups among groups, paths
// as /proc names them. Each one found is checked for the run before it
// is counted.
func cgroupMembers(groups []string) []procid.ID {
	h, err := cgroup.Host()
	if err != nil {
		return nil
	}
	var out []procid.ID
	seen := map[string]bool{}
	for _, c := range groups {
		dir := groupDir(h, c)
		if dir == "" || seen[dir] {
			continue
		}
		seen[dir] = true
		out = append(out, h.Members(proc.Host(), dir)...)
	}
	return out
}

// runGroupOf is the group of run runID that pid is in, as
// cgroupMembers and removeEmptied take it (its path); "" when it is
// in none: read before the reclaim, so that the group of a run whose
// members kept their markers (and so name no container) is removed once
// emptied.
func runGroupOf(pid int, runID string) string {
	path, err := proc.Host().Cgroup(pid)
	if err != nil {
		return ""
	}
	if token, group, ok := cgroup.RunOf(path); ok && token == cgroup.Token(runID) {
		return group
	}
	return ""
}
