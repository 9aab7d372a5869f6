//go:build !linux

package proc

// Children lists nothing here: there is no per-thread children list, and
// callers that walk a tree fall back on what else they know (Subtree
// walks the parent links).
func (fs FS) Children(pid int) []int { return nil }
