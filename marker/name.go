package marker

import (
	"path/filepath"
	"strings"
)

// MaxNameLen is the longest name the protocol allows.
const MaxNameLen = 64

// NameByte reports whether c may stand in a name: A-Z a-z 0-9 . _ -, so
// that a name can stand in an environment entry, a file name and a log
// line as is.
func NameByte(c byte) bool {
	return c == '.' || c == '_' || c == '-' ||
		(c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')
}

// NameFor derives the default name of a run from its command: the base
// name, with every character outside the allowed set replaced by '_', cut to
// MaxNameLen. It always returns a valid name.
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
		if r < 0x80 && NameByte(byte(r)) {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}
