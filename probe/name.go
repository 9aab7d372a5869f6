package probe

import (
	"fmt"

	"github.com/tetherproc/tether/marker"
)

// maxNameLen is the longest name the protocol allows.
const maxNameLen = marker.MaxNameLen

// validateName accepts 1 to 64 characters of A-Z a-z 0-9 . _ -, so that a
// name can stand in an environment entry, a file name and a log line as is.
func validateName(name string) error {
	if name == "" {
		return fmt.Errorf("invalid name %q: empty (want 1-%d of A-Z a-z 0-9 . _ -)", name, maxNameLen)
	}
	if len(name) > maxNameLen {
		return fmt.Errorf("invalid name %q: %d characters, at most %d", name, len(name), maxNameLen)
	}
	for i := 0; i < len(name); i++ {
		if !marker.NameByte(name[i]) {
			return fmt.Errorf("invalid name %q: character %q at %d (want A-Z a-z 0-9 . _ -)", name, name[i], i)
		}
	}
	return nil
}
