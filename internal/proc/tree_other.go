//go:build !linux

package proc

// Children lists nothing here: there is no per-thread children list, and
// callers that walk a tree fall back on what else they know.
func (fs FS) Children(pid int) []int { return nil }

// Subtree lists nothing here; see Children.
func (fs FS) Subtree(root, skip int) []Member { return nil }
