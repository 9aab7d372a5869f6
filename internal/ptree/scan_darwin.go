//go:build darwin

package ptree

import (
	"os"
	"slices"
	"strings"

	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/procid"
)

// Scan matches each process's environment (kern.procargs2) against
// entries. Other users' environments are unreadable here unless running
// as root. No execve window is known on macOS: executing is always empty.
func Scan(fs proc.FS, entries []string) (matched []procid.ID, executing []int) {
	return members(scan(fs, func(env []string) (string, bool) { return "", hasAll(env, entries) }))
}

// ScanValues is Scan that also reads, from the environment of each
// process it matches, the value of variable key.
func ScanValues(fs proc.FS, entries []string, key string) (matched []Valued, executing []int) {
	return scan(fs, func(env []string) (string, bool) {
		if !hasAll(env, entries) {
			return "", false
		}
		for _, e := range env {
			if v, ok := strings.CutPrefix(e, key+"="); ok {
				return v, true
			}
		}
		return "", true
	})
}

// ScanAny is Scan for the processes whose environment holds any one of
// entries.
func ScanAny(fs proc.FS, entries []string) (matched []procid.ID, executing []int) {
	return members(scan(fs, func(env []string) (string, bool) {
		return "", slices.ContainsFunc(entries, func(e string) bool { return slices.Contains(env, e) })
	}))
}

// scan is one walk of the table for the environments match takes: one
// sysctl for the table (kern.proc.all), then one kern.procargs2 for each
// process whose environment can be read at all. The kernel gives a
// zombie's to no one and another user's only to root, so those are not
// asked for. Each match is named by the start time the table gave it,
// read before its environment: should its PID be taken by another
// process in between, the member names the one gone, never the other.
func scan(fs proc.FS, match func(env []string) (string, bool)) (matched []Valued, executing []int) {
	snap, err := ReadSnapshot(fs)
	if err != nil {
		return nil, nil
	}
	self, uid, root := os.Getpid(), os.Getuid(), os.Geteuid() == 0
	snap.Each(func(p proc.Process) {
		if p.PID == self || p.Zombie || !root && p.UID != uid {
			return
		}
		env, err := fs.Environ(p.PID)
		if err != nil {
			return
		}
		if value, ok := match(env); ok {
			matched = append(matched, Valued{procid.ID{PID: p.PID, StartTime: p.StartTime}, value})
		}
	})
	return matched, nil
}

func hasAll(env, entries []string) bool {
	for _, e := range entries {
		if !slices.Contains(env, e) {
			return false
		}
	}
	return true
}
