package probe

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/rand/v2"

	"github.com/tetherproc/tether/internal/marker"
)

// runIDLen is the length of a run id: 128 random bits in lowercase hex.
const runIDLen = marker.RunIDLen

// NewRunID returns a fresh random run id. A run id must be unique and
// not to be guessed by another user (it is in the environment of every
// process of the run, which only its owner and root can read, and on no
// command line): the runtime's generator (ChaCha8, seeded from the
// kernel's randomness at each start) is enough, and crypto/rand would add
// a timer of its own to every start-up.
func NewRunID() string {
	var b [runIDLen / 2]byte
	binary.LittleEndian.PutUint64(b[:8], rand.Uint64())
	binary.LittleEndian.PutUint64(b[8:], rand.Uint64())
	return hex.EncodeToString(b[:])
}

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
