//go:build !linux && !darwin

package reclaim

import "github.com/tetherproc/tether/probe"

// scanTethered finds nothing: this platform has no reader of a process's
// environment, and nothing unverified is ever selected.
func scanTethered(m probe.Markers, name string, anyUser bool) []int { return nil }
