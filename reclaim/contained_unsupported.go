//go:build !linux

package reclaim

import (
	"github.com/tetherproc/tether/procid"
)

// contained finds nothing: only Linux has cgroups.
func contained([]int) []int { return nil }

// removeEmptied has nothing to remove: only Linux has cgroups.
func removeEmptied([]Result, []string) {}

// cgroupMembers finds none: there are no cgroups.
func cgroupMembers([]string) []procid.ID { return nil }

// runGroupOf finds none: there are no cgroups.
func runGroupOf(int, string) string { return "" }
