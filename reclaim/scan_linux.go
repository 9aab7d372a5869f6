package reclaim

import (
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"

	"github.com/tetherproc/tether/probe"
)

// allPIDs lists the processes in /proc (threads are not listed).
func allPIDs() []int {
	f, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	names, _ := f.Readdirnames(-1)
	f.Close()
	pids := make([]int, 0, len(names))
	for _, n := range names {
		if n[0] < '0' || n[0] > '9' {
			continue
		}
		if pid, err := strconv.Atoi(n); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

// parallel runs fn(i, buf) for i in [0, n) on two workers per core, each
// with its own scratch buffer, which fn may grow.
func parallel(n int, fn func(i int, buf *[]byte)) {
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

// readInto reads a whole /proc file into buf's storage, growing it as
// needed.
func readInto(path string, buf []byte) ([]byte, error) {
	buf = buf[:cap(buf)]
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return buf[:0], err
	}
	defer unix.Close(fd)
	n := 0
	for {
		if n == len(buf) {
			buf = append(buf, make([]byte, len(buf))...)
		}
		k, err := unix.Read(fd, buf[n:])
		if err != nil {
			return buf[:n], err
		}
		if k == 0 {
			return buf[:n], nil
		}
		n += k
	}
}

// scanTethered walks /proc once and returns the PIDs whose environment
// matches the markers and name, and those caught in the middle of an
// execve: a cheap first pass, each one verified by probe.Check afterwards.
// Unless anyUser, other users' processes (by the owner of /proc/PID) are
// skipped before their environment is read.
func scanTethered(m probe.Markers, name string, anyUser bool) []int {
	pids := allPIDs()
	match := m.Matcher(name)
	uid := uint32(os.Geteuid())
	self := os.Getpid()
	var mu sync.Mutex
	var out []int
	parallel(len(pids), func(i int, buf *[]byte) {
		pid := pids[i]
		if pid == self {
			return
		}
		dir := "/proc/" + strconv.Itoa(pid)
		if !anyUser {
			var st unix.Stat_t
			if unix.Stat(dir, &st) != nil || st.Uid != uid {
				return
			}
		}
		env, err := readInto(dir+"/environ", *buf)
		*buf = env
		if err != nil {
			return
		}
		// A process in the middle of an execve reads as having no
		// environment; it goes to probe.Check, which waits the exec out.
		if !match.Match(env) && (len(env) > 0 || !probe.Executing(pid)) {
			return
		}
		mu.Lock()
		out = append(out, pid)
		mu.Unlock()
	})
	return out
}
