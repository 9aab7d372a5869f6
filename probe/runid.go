package probe

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
)

// runIDLen is the length of a run id: 128 random bits in lowercase hex.
const runIDLen = 32

// NewRunID returns a fresh random run id. A run id must be unique, not
// secret (it is in the environment of every process of the run): the
// runtime's generator (ChaCha8, seeded from the kernel's randomness at
// each start) is enough, and crypto/rand would add a package tree and a
// timer of its own to every start-up.
func NewRunID() string {
	var b [runIDLen / 2]byte
	binary.LittleEndian.PutUint64(b[:8], rand.Uint64())
	binary.LittleEndian.PutUint64(b[8:], rand.Uint64())
	return hex.EncodeToString(b[:])
}

// validateRunID accepts exactly 32 lowercase hex digits.
func validateRunID(id string) error {
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
