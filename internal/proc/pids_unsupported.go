//go:build !linux && !darwin

package proc

// PIDs lists nothing: this platform has no reader.
func (fs FS) PIDs() ([]int, error) { return nil, unsupported(0) }
