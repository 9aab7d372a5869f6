package probe

import (
	"fmt"
	"path/filepath"
	"strings"
)

// maxNameLen is the longest name the protocol allows.
const maxNameLen = 64

func nameByte(c byte) bool {
	return c == '.' || c == '_' || c == '-' ||
		(c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')
}

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
		if !nameByte(name[i]) {
			return fmt.Errorf("invalid name %q: character %q at %d (want A-Z a-z 0-9 . _ -)", name, name[i], i)
		}
	}
	return nil
}

// NameFor derives the default name of a run from its command: the base
// name, with every character outside the allowed set replaced by '_', cut to
// maxNameLen. It always returns a valid name.
func NameFor(command string) string {
	base := filepath.Base(command)
	if base == "." || base == "/" || base == "" {
		base = "cmd"
	}
	var b strings.Builder
	for _, r := range base {
		if b.Len() == maxNameLen {
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
