package cgroup

import "strings"

// prefix starts the name of every run's group: "tether-" and the run id.
const prefix = "tether-"

// Name is the name of the group of run runID.
func Name(runID string) string { return prefix + runID }

// RunOf finds the run a cgroup path belongs to: the deepest component
// named after a run id ("tether-" and 32 hex digits), so that a group a
// member made below its run's is still the run's. It returns the run id
// and the path of the run's group.
func RunOf(path string) (runID, group string, ok bool) {
	for rest := path; rest != ""; {
		i := strings.LastIndexByte(rest, '/')
		if i < 0 {
			return "", "", false
		}
		if id, ok := strings.CutPrefix(rest[i+1:], prefix); ok && IsRunID(id) {
			return id, rest, true
		}
		rest = rest[:i]
	}
	return "", "", false
}

// IsRunID reports whether id reads as a run id, as a group's name, a
// watchdog's argument and a run record's file name hold one: 32 lowercase hex digits (probe's
// Stamp.Validate, which the packages below probe cannot call).
func IsRunID(id string) bool {
	if len(id) != 32 {
		return false
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}
