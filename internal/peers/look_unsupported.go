//go:build !linux

package peers

// Supported says that Look cannot tell here.
const Supported = false

// Look is not supported here: nothing is known.
func Look(root string, pid, fd int) (End, error) { return End{}, ErrUnsupported }
