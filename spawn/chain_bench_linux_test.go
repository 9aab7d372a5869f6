//go:build linux

package spawn

import (
	"os"
	"testing"

	"github.com/tetherproc/tether/internal/proc"
)

// The cost of following the caller's chain at start: the walk up, a
// watch per ancestor, and its end.
func BenchmarkFollowChain(b *testing.B) {
	sigs := make(chan os.Signal, 1)
	for b.Loop() {
		stop, err := followChain(os.Getppid(), sigs)
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
