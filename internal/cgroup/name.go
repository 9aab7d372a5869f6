package cgroup

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/tetherproc/tether/marker"
)

// prefix starts the name of every run's group: "tether-" and the run's
// token.
const prefix = "tether-"

// Name is the name of the group of run runID: "tether-" and the run's
// [Token].
func Name(runID string) string { return prefix + Token(runID) }

// Token stands for run runID in its group's name: 32 hex digits of a
// hash of the run id, not the run id itself. Every process's
// /proc/PID/cgroup is anyone's to read, and a run id is its owner's
// secret; whoever knows the run id (its members, by their environment;
// a record's reader) finds its group by the token, and no one finds the
// run id from it.
func Token(runID string) string {
	sum := sha256.Sum256([]byte("tether cgroup\x00" + runID))
	return hex.EncodeToString(sum[:16])
}

// RunOf finds the run a cgroup path belongs to: the deepest component
// named as a run's group ("tether-" and 32 hex digits), so that a group
// a member made below its run's is still the run's. It returns the
// run's token ([Token]) and the path of the run's group.
func RunOf(path string) (token, group string, ok bool) {
	for rest := path; rest != ""; {
		i := strings.LastIndexByte(rest, '/')
		if i < 0 {
			return "", "", false
		}
		// A token reads as a run id does: 32 lowercase hex digits.
		if id, ok := strings.CutPrefix(rest[i+1:], prefix); ok && marker.IsRunID(id) {
			return id, rest, true
		}
		rest = rest[:i]
	}
	return "", "", false
}
