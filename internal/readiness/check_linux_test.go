package readiness

import "testing"

// BenchmarkServing is one check of a wait without Owned: one read of the
// socket table, whatever the number of processes.
func BenchmarkServing(b *testing.B) {
	for b.Loop() {
		if _, err := serving([]uint16{1}, nil, ""); err != nil {
			b.Fatal(err)
		}
	}
}
