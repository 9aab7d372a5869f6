//go:build !linux

package peers

// Look is not supported here: nothing is known.
func Look(root string, pid, fd int) (End, error) { return End{}, ErrUnsupported }
