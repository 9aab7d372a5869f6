package marker

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
)

// RunIDLen is the length of a run id: 128 random bits in lowercase hex.
const RunIDLen = 32

// IsRunID reports whether id is a run id: exactly 32 lowercase hex
// digits. One form only, so that a run id is compared as a string and
// is also a safe file and cgroup name.
func IsRunID(id string) bool {
	if len(id) != RunIDLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		if !isLowerHex(id[i]) {
			return false
		}
	}
	return true
}

// ValidateRunID returns nil for a run id ([IsRunID]) and otherwise an
// error that quotes id and says what is wrong with it: its length, or
// the first character that is not a lowercase hex digit.
func ValidateRunID(id string) error {
	if len(id) != RunIDLen {
		return fmt.Errorf("invalid run id %q: %d characters, want %d lowercase hex digits", id, len(id), RunIDLen)
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; !isLowerHex(c) {
			return fmt.Errorf("invalid run id %q: character %q at %d, want lowercase hex", id, c, i)
		}
	}
	return nil
}

func isLowerHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' }

// NewRunID returns a fresh random run id. A run id must be unique and
// not to be guessed by another user (it is in the environment of every
// process of the run, which only its owner and root can read, and on no
// command line): the runtime's generator (ChaCha8, seeded from the
// kernel's randomness at each start) is enough, and crypto/rand would add
// a timer of its own to every start-up.
func NewRunID() string {
	var b [RunIDLen / 2]byte
	binary.LittleEndian.PutUint64(b[:8], rand.Uint64())
	binary.LittleEndian.PutUint64(b[8:], rand.Uint64())
	return hex.EncodeToString(b[:])
}
