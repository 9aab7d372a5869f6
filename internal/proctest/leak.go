//go:build linux

package proctest

import (
	"context"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/ptree"
	"github.com/tetherproc/tether/internal/runtree"
	"github.com/tetherproc/tether/procid"
)

var ids sync.Map

func registered(t testing.TB, id string) bool {
	_, loaded := ids.LoadOrStore(id, true)
	return loaded
}

// Alive returns the live (non-zombie) processes that carry the test id,
// and whether some process was caught in the middle of an execve and
// could not be told apart yet: the scan of the watchdog, with its rule,
// so that the leak check is no weaker than the code it checks.
func Alive(id string) (pids []int, unsettled bool) {
	ms, unsettled := alive(id)
	for _, m := range ms {
		pids = append(pids, m.PID)
	}
	return pids, unsettled
}

func alive(id string) ([]procid.ID, bool) {
	ms, executing := ptree.Scan(proc.Host(), []string{IDVar + "=" + id})
	return ms, len(executing) > 0
}

// checkLeaks fails t when a process that carries its id is still alive a
// few seconds after the test's own cleanups ran (helpers exit by
// themselves once their pipe closes), and then ends those processes,
// which the test started, as the watchdog would: through a pidfd, after
// a fresh look at each one's start time, until the scans come back empty.
func checkLeaks(t testing.TB, id string) {
	deadline := time.Now().Add(5 * time.Second)
	for {
		left, unsettled := alive(id)
		if len(left) == 0 && !unsettled {
			return
		}
		if time.Now().After(deadline) {
			if len(left) > 0 {
				t.Errorf("leak: processes %v of test %s still alive 5s after it ended, want none; killed", left, t.Name())
			}
			runtree.Tree{
				What:    "leak check of " + t.Name(),
				Sources: []runtree.Source{runtree.SourceFunc(func() ([]procid.ID, bool) { return alive(id) })},
				Signal:  syscall.SIGKILL,
				Quiet:   250 * time.Millisecond,
			}.End(context.Background(), 0)
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}
