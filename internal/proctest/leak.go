//go:build linux

package proctest

import (
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tetherproc/tether/internal/proc"
)

var ids sync.Map

func registered(t testing.TB, id string) bool {
	_, loaded := ids.LoadOrStore(id, true)
	return loaded
}

// Alive returns the live (non-zombie) processes that carry the test id,
// and whether some process was caught in the middle of an execve and
// could not be told apart yet: the same scan, with the same rule, as the
// watchdog's, so that the leak check is no weaker than the code it checks.
func Alive(id string) (pids []int, unsettled bool) {
	ms, executing := proc.Host().Scan([]string{IDVar + "=" + id})
	for _, m := range ms {
		pids = append(pids, m.PID)
	}
	return pids, len(executing) > 0
}

// checkLeaks fails t when a process that carries its id is still alive a
// few seconds after the test's own cleanups ran (helpers exit by
// themselves once their pipe closes), and kills those processes: the test
// started them.
func checkLeaks(t testing.TB, id string) {
	deadline := time.Now().Add(5 * time.Second)
	for {
		left, unsettled := Alive(id)
		if len(left) == 0 && !unsettled {
			return
		}
		if time.Now().After(deadline) {
			for _, pid := range left {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
			if len(left) > 0 {
				t.Errorf("leak: processes %v of test %s still alive 5s after it ended, want none; killed", left, t.Name())
			}
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}
