package probe

import (
	"fmt"

	"github.com/tetherproc/tether/marker"
)

// runIDLen is the length of a run id: 128 random bits in lowercase hex.
const runIDLen = marker.RunIDLen

// validateRunID accepts exactly 32 lowercase hex digits (marker.IsRunID),
// and says what is wrong with anything else.
func validateRunID(id string) error {
	if marker.IsRunID(id) {
		return nil
	}
	if len(id) != runIDLen {
		return fmt.Errorf("invalid run id %q: %d characters, want %d lowercase hex digits", id, len(id), runIDLen)
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return fmt.Errorf("invalid run id %q: character %q at %d, want lowercase hex", id, c, i)
		}
	}
	return nil
}
