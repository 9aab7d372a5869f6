//go:build !linux && !darwin

package proc

import "github.com/tetherproc/tether/procid"

// PIDs lists nothing: this platform has no reader.
func (fs FS) PIDs() ([]int, error) { return nil, unsupported(0) }

// Scan finds nothing: this platform has no reader of a process's
// environment, and nothing unverified is ever matched.
func (fs FS) Scan(entries []string) (matched []procid.ID, executing []int) {
	return members(fs.ScanValues(entries, ""))
}

// ScanAny finds nothing where there is no process table to read.
func (fs FS) ScanAny(entries []string) (matched []procid.ID, executing []int) { return nil, nil }

// ScanValues finds nothing where there is no process table to read.
func (fs FS) ScanValues(entries []string, key string) (matched []Valued, executing []int) {
	return nil, nil
}
