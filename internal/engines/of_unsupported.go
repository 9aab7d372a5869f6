//go:build !linux

package engines

// Of returns nil: only Linux's process table says which container or
// unit a process is in.
func Of(pid int) *Manager { return nil }

// OfRead returns nil, as Of does.
func OfRead(int, Read) *Manager { return nil }
