package printable

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestString(t *testing.T) {
	tests := []struct{ in, want string }{
		{"web", "web"},
		{"nginx: master process /usr/sbin/nginx", "nginx: master process /usr/sbin/nginx"},
		{"héllo wörld ✓", "héllo wörld ✓"},
		{"\x1b[2J\x1b]0;owned\x1b\\", `\x1b[2J\x1b]0;owned\x1b\`},
		{"a\tb\nc\rd\x00e", `a\x09b\x0ac\x0dd\x00e`},
		{"del\x7f", `del\x7f`},
		{"csi\u009b31m", `csi\u009b31m`},
		{"\u0085next line", `\u0085next line`},
		{"bad\xff\xfeutf8", `bad\xff\xfeutf8`},
		{"cut\xe2\x82", `cut\xe2\x82`},
		{"rtl\u202eexe.txt", `rtl\u202eexe.txt`},
		{"isolate\u2066x\u2069", `isolate\u2066x\u2069`},
		{"", ""},
	}
	for _, tt := range tests {
		if got := String(tt.in); got != tt.want {
			t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// Whatever goes in, what comes out is valid UTF-8 with no control
// character and no bidirectional override left.
func FuzzString(f *testing.F) {
	for _, s := range []string{"web", "\x1b[2J", "\u009b", "\xff", "\u202e", "a\x00b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := String(s)
		if !utf8.ValidString(out) {
			t.Fatalf("String(%q) = %q: not valid UTF-8", s, out)
		}
		for _, r := range out {
			if unsafe(r, utf8.RuneLen(r)) {
				t.Fatalf("String(%q) = %q: %U left", s, out, r)
			}
		}
		if !strings.ContainsFunc(s, func(r rune) bool { return unsafe(r, utf8.RuneLen(r)) }) && utf8.ValidString(s) && out != s {
			t.Fatalf("String(%q) = %q: a safe string changed", s, out)
		}
	})
}
