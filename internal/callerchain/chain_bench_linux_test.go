//go:build linux

package callerchain

import (
	"os"
	"testing"

	"github.com/tetherproc/tether/internal/proc"
)

// The cost of following the caller's chain at start: the walk up, a
// watch per ancestor, and its end.
func BenchmarkFollowChain(b *testing.B) {
	for b.Loop() {
		stop, err := Follow(os.Getppid(), func() {})
		if err != nil {
			b.Fatal(err)
		}
		stop()
	}
}

func BenchmarkCallerChainWalk(b *testing.B) {
	for b.Loop() {
		if _, err := callerChain(proc.Host(), ownStops(), os.Getppid()); err != nil {
			b.Fatal(err)
		}
	}
}
