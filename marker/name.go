package marker

import (
	"fmt"
	"path/filepath"
	"strings"
)

// MaxNameLen is the longest name the protocol allows.
const MaxNameLen = 64

// ValidateName returns nil for a name of 1 to [MaxNameLen] characters of
// A-Z a-z 0-9 . _ -, and otherwise an error that quotes name and says
// what is wrong with it. The alphabet is that narrow so that a name can
// stand in an environment entry, a file name and a log line as is, with
// no quoting that two readers could disagree on.
func ValidateName(name string) error {
	if name == "" {
		return fmt.Errorf("invalid name %q: empty (want 1-%d of A-Z a-z 0-9 . _ -)", name, MaxNameLen)
	}
	if len(name) > MaxNameLen {
		return fmt.Errorf("invalid name %q: %d characters, at most %d", name, len(name), MaxNameLen)
	}
	for i := 0; i < len(name); i++ {
		if !nameByte(name[i]) {
			return fmt.Errorf("invalid name %q: character %q at %d (want A-Z a-z 0-9 . _ -)", name, name[i], i)
		}
	}
	return nil
}

// nameByte reports whether c may stand in a name.
func nameByte(c byte) bool {
	return c == '.' || c == '_' || c == '-' ||
		(c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')
}

// NameFor derives the default name of a run from its command: the base
// name, with every character outside the allowed set replaced by '_', cut to
// MaxNameLen. It always returns a valid name, so that a run started
// without one still carries a name a person recognises.
func NameFor(command string) string {
	base := filepath.Base(command)
	if base == "." || base == "/" || base == "" {
		base = "cmd"
	}
	var b strings.Builder
	for _, r := range base {
		if b.Len() == MaxNameLen {
			break
		}
		if r < 0x80 && nameByte(byte(r)) {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}
