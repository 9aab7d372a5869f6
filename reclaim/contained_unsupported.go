//go:build !linux

package reclaim

// contained finds nothing: only Linux has cgroups.
func contained([]int) []int { return nil }

// removeEmptied has nothing to remove: only Linux has cgroups.
func removeEmptied([]Result) {}
