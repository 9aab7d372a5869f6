package probe

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
)

// runIDLen is the length of a run id: 128 random bits in lowercase hex.
const runIDLen = 32

// NewRunID returns a fresh random run id.
func NewRunID() string {
	var b [runIDLen / 2]byte
	// crypto/rand.Read never fails on the supported platforms (Go 1.24+).
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// ValidateRunID accepts exactly 32 lowercase hex digits.
func ValidateRunID(id string) error {
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
