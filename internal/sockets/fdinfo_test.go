package sockets

import (
	"os"
	"testing"
)

func TestParseFdinfoFlags(t *testing.T) {
	data, err := os.ReadFile("testdata/fdinfo")
	if err != nil {
		t.Fatal(err)
	}
	if flags, err := ParseFdinfoFlags(data); err != nil || flags != 1 {
		t.Errorf("ParseFdinfoFlags(testdata/fdinfo) = %o, %v; want 01 (O_WRONLY)", flags, err)
	}
	for _, bad := range []string{"", "pos:\t0\n", "flags:\t09\n"} {
		if _, err := ParseFdinfoFlags([]byte(bad)); err == nil {
			t.Errorf("ParseFdinfoFlags(%q): no error", bad)
		}
	}
}

func FuzzParseFdinfoFlags(f *testing.F) {
	f.Add([]byte("pos:\t0\nflags:\t02004002\nmnt_id:\t15\n"))
	f.Fuzz(func(t *testing.T, data []byte) { _, _ = ParseFdinfoFlags(data) })
}
