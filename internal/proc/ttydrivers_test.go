package proc

import (
	"os"
	"testing"
)

func TestParseTTYDrivers(t *testing.T) {
	data, err := os.ReadFile("testdata/tty_drivers")
	if err != nil {
		t.Fatal(err)
	}
	m, err := ParseTTYDrivers(data)
	if err != nil {
		t.Fatal(err)
	}
	for _, major := range []uint32{4, 5, 136, 128, 188, 229} {
		if !m[major] {
			t.Errorf("major %d not read as a terminal's: %v", major, m)
		}
	}
	if m[1] {
		t.Error("major 1 (memory devices: /dev/null) read as a terminal's")
	}
	for _, bad := range []string{"serial /dev/ttyS x 64 serial\n", "a b c\n"} {
		if _, err := ParseTTYDrivers([]byte(bad)); err == nil {
			t.Errorf("ParseTTYDrivers(%q): no error", bad)
		}
	}
}

func FuzzParseTTYDrivers(f *testing.F) {
	if data, err := os.ReadFile("testdata/tty_drivers"); err == nil {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) { _, _ = ParseTTYDrivers(data) })
}
