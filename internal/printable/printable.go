package printable

import (
	"strconv"
	"unicode"
	"unicode/utf8"
)

// String is s with every character that could drive a terminal escaped:
// C0 and C1 controls, DEL, the bidirectional formatting characters, and
// each byte of invalid UTF-8. A string with none is returned as it is.
func String(s string) string { return escape(s, false) }

// JSON escapes, in encoding/json's output data, the characters String
// escapes that JSON leaves as they are (C1 controls and the
// bidirectional formatting characters: JSON escapes only C0, and
// encoding/json writes invalid UTF-8 as U+FFFD), as \uXXXX: the same
// JSON, safe on a terminal. Outside its strings JSON is ASCII, so every
// such character is inside one.
func JSON(data []byte) []byte {
	s := string(data)
	if out := escape(s, true); out != s {
		return []byte(out)
	}
	return data
}

// escape is String, or with json only the characters beyond ASCII that
// JSON leaves as they are.
func escape(s string, json bool) string {
	escaped := func(r rune, n int) bool { return unsafe(r, n) && (!json || r >= 0x80 && n > 1) }
	i := 0
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if escaped(r, n) {
			break
		}
		i += n
	}
	if i == len(s) {
		return s
	}
	b := make([]byte, 0, len(s)+8)
	b = append(b, s[:i]...)
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case !escaped(r, n):
			b = append(b, s[i:i+n]...)
		case n == 1: // C0, DEL, or a byte that is no UTF-8
			b = append(b, `\x`...)
			b = appendHex(b, uint32(s[i]), 2)
		default:
			b = append(b, `\u`...)
			b = appendHex(b, uint32(r), 4)
		}
		i += n
	}
	return string(b)
}

// unsafe reports whether the rune r, n bytes long, is to be escaped.
func unsafe(r rune, n int) bool {
	switch {
	case r == utf8.RuneError && n == 1:
		return true // a byte that is no UTF-8
	case r < 0x20 || r == 0x7f:
		return true // C0, DEL
	case r >= 0x80 && r <= 0x9f:
		return true // C1: 0x9b is CSI on its own
	case unicode.Is(unicode.Bidi_Control, r):
		return true // marks, embeddings, overrides, isolates: they reorder what is shown
	}
	return false
}

func appendHex(b []byte, v uint32, width int) []byte {
	h := strconv.FormatUint(uint64(v), 16)
	for i := len(h); i < width; i++ {
		b = append(b, '0')
	}
	return append(b, h...)
}
