package printable

import (
	"encoding/json"
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
		{"arabic mark\u061c", `arabic mark\u061c`},
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

func TestJSON(t *testing.T) {
	in := map[string]string{"name": "\x1b[2J\u009b31m\u202eok\xff"}
	data, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	out := JSON(data)
	if strings.ContainsAny(string(out), "\x1b\u009b\u202e") {
		t.Errorf("JSON(%q) = %q: controls left", data, out)
	}
	var back map[string]string
	if err := json.Unmarshal(out, &back); err != nil || back["name"] != "\x1b[2J\u009b31m\u202eok\ufffd" {
		t.Errorf("JSON(%q) = %q reads back as %q, %v; want the same string", data, out, back["name"], err)
	}
	if plain := []byte(`{"name":"web ✓"}`); string(JSON(plain)) != string(plain) {
		t.Errorf("JSON(%q) = %q, want it unchanged", plain, JSON(plain))
	}
}
