//go:build !linux

package proc

// Files is not read here: ErrUnverifiable.
func (fs FS) Files(pid int) ([]File, error) { return nil, ErrUnverifiable }
