//go:build !linux && !darwin

package ptree

import (
	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/procid"
)

// Scan finds nothing: this platform has no reader of a process's
// environment, and nothing unverified is ever matched.
func Scan(fs proc.FS, entries []string) (matched []procid.ID, executing []int) {
	return members(ScanValues(fs, entries, ""))
}

// ScanAny finds nothing where there is no process table to read.
func ScanAny(fs proc.FS, entries []string) (matched []procid.ID, executing []int) { return nil, nil }

// ScanValues finds nothing where there is no process table to read.
func ScanValues(fs proc.FS, entries []string, key string) (matched []Valued, executing []int) {
	return nil, nil
}
