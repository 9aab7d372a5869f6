package marker

import "testing"

func TestIsRunID(t *testing.T) {
	for id, want := range map[string]bool{
		"0123456789abcdef0123456789abcdef":  true,
		"0123456789ABCDEF0123456789ABCDEF":  false,
		"0123456789abcdef0123456789abcde":   false,
		"0123456789abcdef0123456789abcdef0": false,
		"../../etc/passwd0123456789abcdef":  false,
		"":                                  false,
	} {
		if got := IsRunID(id); got != want {
			t.Errorf("IsRunID(%q) = %v, want %v", id, got, want)
		}
	}
}

func TestID(t *testing.T) {
	for _, s := range []string{"1:0", "4194304:18446744073709551615", "42:7"} {
		id, err := ParseID(s)
		if err != nil || id.String() != s {
			t.Errorf("ParseID(%q) = %v, %v; want it back as written", s, id, err)
		}
	}
	for _, s := range []string{"", "42", "0:5", "-1:5", "x:5", "42:", "42:-1", "42:x", " 42:5"} {
		if id, err := ParseID(s); err == nil {
			t.Errorf("ParseID(%q) = %v; want an error", s, id)
		}
	}
	if (ID{}).String() != "" {
		t.Error("the zero ID is not written empty")
	}
}

func FuzzParseID(f *testing.F) {
	for _, s := range []string{"1:0", "42:7", "x:y", ":", "99999999999999999999:1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, err := ParseID(s)
		if err != nil {
			return
		}
		again, err := ParseID(id.String())
		if err != nil || again != id || id.PID <= 0 {
			t.Fatalf("ParseID(%q) = %v, which reads back as %v, %v", s, id, again, err)
		}
	})
}
