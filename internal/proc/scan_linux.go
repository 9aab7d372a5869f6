//go:build linux

package proc

import (
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"

	"github.com/tetherproc/tether/procid"
)

// PIDs lists the processes of the table (threads are not listed).
func (fs FS) PIDs() ([]int, error) {
	fd, err := unix.Open(fs.root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", fs.root, err)
	}
	defer unix.Close(fd)
	return pidEntries(fd, 32<<10)
}

// Parallel runs fn(i, buf) for i in [0, n) on two workers per core, each
// with its own scratch buffer, which fn may grow: the reads of a scan
// spend their time in the kernel, so more workers than cores help.
func Parallel(n int, fn func(i int, buf *[]byte)) {
	workers := min(2*runtime.NumCPU(), max(1, n/64))
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 4096)
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				fn(i, &buf)
			}
		}()
	}
	wg.Wait()
}

// Scan walks the table once and returns the live processes, other than
// the caller, whose environment holds every one of entries whole. A
// process caught in the middle of an execve reads as having no
// environment yet; it is returned in executing, since it may be one of
// them (only while it is young: past ExecWindow it unmapped its
// environment itself, and no scan is held up by it): a caller that must not miss one (a cleanup, a leak check) scans
// again, one that verifies each candidate (a reclaim) waits it out.
func (fs FS) Scan(entries []string) (matched []procid.ID, executing []int) {
	want := make([][]byte, len(entries))
	for i, e := range entries {
		want[i] = []byte(e)
	}
	return members(fs.scan(func(env []byte) (string, bool) { return "", HasEntries(env, want) }))
}

// ScanValues is Scan that also reads, from the environment of each
// process it matches, the value of variable key: one walk finds the
// processes and tells which run, say, each one is of.
func (fs FS) ScanValues(entries []string, key string) (matched []Valued, executing []int) {
	want := make([][]byte, len(entries))
	for i, e := range entries {
		want[i] = []byte(e)
	}
	prefix := []byte(key + "=")
	return fs.scan(func(env []byte) (string, bool) {
		if !HasEntries(env, want) {
			return "", false
		}
		return EnvValue(env, prefix), true
	})
}

// ScanAny is Scan for the processes whose environment holds any one of
// entries whole: the processes of several runs, each known by its run
// id, from one pass.
func (fs FS) ScanAny(entries []string) (matched []procid.ID, executing []int) {
	want := make([][][]byte, len(entries))
	for i, e := range entries {
		want[i] = [][]byte{[]byte(e)}
	}
	return members(fs.scan(func(env []byte) (string, bool) {
		for _, w := range want {
			if HasEntries(env, w) {
				return "", true
			}
		}
		return "", false
	}))
}

// environOf reads pid's environment into buf. A process caught in the
// middle of an execve reads as having none: while it is young, that is
// midExec; past that, it is read again, the execve having maybe finished
// between the two reads.
func (fs FS) environOf(pid int, buf []byte) (env []byte, midExec bool, err error) {
	env, err = readInto(fs.Path(pid, "environ"), buf)
	if err == nil && len(env) == 0 {
		if fs.Executing(pid) && fs.youngPID(pid) {
			return env, true, nil
		}
		env, err = readInto(fs.Path(pid, "environ"), env)
	}
	return env, false, err
}

// scan is one walk of the table for the environments match takes, each
// with the value match read from it.
func (fs FS) scan(match func(env []byte) (string, bool)) (matched []Valued, executing []int) {
	pids, _ := fs.PIDs()
	self := os.Getpid()
	var mu sync.Mutex
	Parallel(len(pids), func(i int, buf *[]byte) {
		pid := pids[i]
		if pid == self {
			return
		}
		env, midExec, err := fs.environOf(pid, *buf)
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
