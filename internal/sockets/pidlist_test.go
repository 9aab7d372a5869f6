package sockets

import (
	"slices"
	"testing"
)

func TestParsePIDList(t *testing.T) {
	// 1, 0, 501, -1, 99999 and a stray byte: the zero, the negative and
	// the partial entry are left out.
	b := fixture(t, "pidlist", "with-zeros.bin")
	if got, want := parsePIDList(b), []int{1, 501, 99999}; !slices.Equal(got, want) {
		t.Errorf("parsePIDList = %v, want %v", got, want)
	}
}
