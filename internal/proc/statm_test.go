package proc

import (
	"os"
	"testing"
)

func TestParseStatm(t *testing.T) {
	data, err := os.ReadFile("testdata/statm")
	if err != nil {
		t.Fatal(err)
	}
	if n, err := ParseStatm(data); err != nil || n != 2913 {
		t.Errorf("ParseStatm(testdata/statm) = %d, %v; want 2913 pages", n, err)
	}
	for _, bad := range []string{"", "12", "12 x 3"} {
		if _, err := ParseStatm([]byte(bad)); err == nil {
			t.Errorf("ParseStatm(%q): no error", bad)
		}
	}
}

func FuzzParseStatm(f *testing.F) {
	f.Add([]byte("67236 2913 2162 343 0 7447 0\n"))
	f.Fuzz(func(t *testing.T, data []byte) { _, _ = ParseStatm(data) })
}
