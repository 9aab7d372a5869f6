//go:build linux

package proctest

import (
	"bytes"
	"os"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"
)

var ids sync.Map

func registered(t testing.TB, id string) bool {
	_, loaded := ids.LoadOrStore(id, true)
	return loaded
}

// Alive returns the live (non-zombie) processes that carry the test id.
func Alive(id string) []int {
	entry := []byte(IDVar + "=" + id + "\x00")
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
		env, err := os.ReadFile("/proc/" + d.Name() + "/environ")
		if err != nil || !bytes.Contains(append([]byte{0}, env...), append([]byte{0}, entry...)) {
			continue
		}
		if stat, err := os.ReadFile("/proc/" + d.Name() + "/stat"); err == nil {
			if i := bytes.LastIndexByte(stat, ')'); i > 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
				continue
			}
		}
		pids = append(pids, pid)
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
