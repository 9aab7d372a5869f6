//go:build linux

package ptree

import (
	"os"
	"sync"

	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/procid"
)

// Scan walks the table once and returns the live processes, other than
// the caller, whose environment holds every one of entries whole. A
// process caught in the middle of an execve reads as having no
// environment yet; it is returned in executing, since it may be one of
// them (only while it is young: past proc.ExecWindow it unmapped its
// environment itself, and no scan is held up by it): a caller that must not miss one (a cleanup, a leak check) scans
// again, one that verifies each candidate (a reclaim) waits it out.
func Scan(fs proc.FS, entries []string) (matched []procid.ID, executing []int) {
	want := make([][]byte, len(entries))
	for i, e := range entries {
		want[i] = []byte(e)
	}
	return members(scan(fs, func(env []byte) (string, bool) { return "", proc.HasEntries(env, want) }))
}

// ScanValues is Scan that also reads, from the environment of each
// process it matches, the value of variable key: one walk finds the
// processes and tells which run, say, each one is of.
func ScanValues(fs proc.FS, entries []string, key string) (matched []Valued, executing []int) {
	want := make([][]byte, len(entries))
	for i, e := range entries {
		want[i] = []byte(e)
	}
	prefix := []byte(key + "=")
	return scan(fs, func(env []byte) (string, bool) {
		if !proc.HasEntries(env, want) {
			return "", false
		}
		return proc.EnvValue(env, prefix), true
	})
}

// ScanAny is Scan for the processes whose environment holds any one of
// entries whole: the processes of several runs, each known by its run
// id, from one pass.
func ScanAny(fs proc.FS, entries []string) (matched []procid.ID, executing []int) {
	want := make([][][]byte, len(entries))
	for i, e := range entries {
		want[i] = [][]byte{[]byte(e)}
	}
	return members(scan(fs, func(env []byte) (string, bool) {
		for _, w := range want {
			if proc.HasEntries(env, w) {
				return "", true
			}
		}
		return "", false
	}))
}

// scan is one walk of the table for the environments match takes, each
// with the value match read from it.
func scan(fs proc.FS, match func(env []byte) (string, bool)) (matched []Valued, executing []int) {
	pids, _ := fs.PIDs()
	self := os.Getpid()
	var mu sync.Mutex
	proc.Parallel(len(pids), func(i int, buf *[]byte) {
		pid := pids[i]
		if pid == self {
			return
		}
		env, midExec, err := fs.EnvironInto(pid, *buf)
		*buf = env
		if midExec {
			mu.Lock()
			executing = append(executing, pid)
			mu.Unlock()
			return
		}
		if err != nil {
			return
		}
		value, ok := match(env)
		if !ok {
			return
		}
		st, err := fs.Stat(pid)
		if err != nil || st.Zombie() {
			return
		}
		mu.Lock()
		matched = append(matched, Valued{procid.ID{PID: pid, StartTime: st.StartTime}, value})
		mu.Unlock()
	})
	return matched, executing
}
