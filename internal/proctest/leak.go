//go:build linux

package proctest

import (
	"os"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tetherproc/tether/probe"
)

var ids sync.Map

func registered(t testing.TB, id string) bool {
	_, loaded := ids.LoadOrStore(id, true)
	return loaded
}

// Alive returns the live (non-zombie) processes that carry the test id.
func Alive(id string) []int {
	entry := IDVar + "=" + id
	dir, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, d := range dir {
		pid, err := strconv.Atoi(d.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := probe.ReadEnviron(pid)
		if err != nil || !probe.HasEntry(env, entry) {
			continue
		}
		if p, err := probe.ReadProcess(pid); err == nil && !p.Zombie {
			pids = append(pids, pid)
		}
	}
	return pids
}

// checkLeaks fails t when a process that carries its id is still alive a
// few seconds after the test's own cleanups ran (helpers exit by
// themselves once their pipe closes), and kills those processes: the test
// started them.
func checkLeaks(t testing.TB, id string) {
	deadline := time.Now().Add(5 * time.Second)
	for {
		left := Alive(id)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			for _, pid := range left {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
			t.Errorf("leak: processes %v of test %s still alive after it ended; killed", left, t.Name())
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}
