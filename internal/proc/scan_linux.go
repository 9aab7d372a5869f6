//go:build linux

package proc

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// PIDs lists the processes of the table (threads are not listed).
func (fs FS) PIDs() ([]int, error) {
	fd, err := unix.Open(fs.root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", fs.root, err)
	}
	defer unix.Close(fd)
	return pidEntries(fd)
}

// pidEntries reads the numeric names of the directory open as fd.
func pidEntries(fd int) ([]int, error) {
	buf := make([]byte, 32<<10)
	pids := make([]int, 0, 512)
	var names []string
	for {
		n, err := unix.Getdents(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return pids, fmt.Errorf("read directory: %w", err)
		}
		if n <= 0 {
			return pids, nil
		}
		_, _, names = unix.ParseDirent(buf[:n], -1, names[:0])
		for _, name := range names {
			if name[0] < '0' || name[0] > '9' {
				continue
			}
			if pid, err := strconv.Atoi(name); err == nil {
				pids = append(pids, pid)
			}
		}
	}
}

// parallel runs fn(i, buf) for i in [0, n) on two workers per core, each
// with its own scratch buffer, which fn may grow: the reads of a scan
// spend their time in the kernel, so more workers than cores help.
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

// readInto reads a whole file into buf's storage, growing it as needed.
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

// Scan walks the table once and returns the live processes, other than
// the caller, whose environment holds every one of entries whole. A
// process caught in the middle of an execve reads as having no
// environment yet; it is returned in executing, since it may be one of
// them: a caller that must not miss one (a cleanup, a leak check) scans
// again, one that verifies each candidate (a reclaim) waits it out.
func (fs FS) Scan(entries []string) (matched []Member, executing []int) {
	pids, _ := fs.PIDs()
	want := make([][]byte, len(entries))
	for i, e := range entries {
		want[i] = []byte(e)
	}
	self := os.Getpid()
	var mu sync.Mutex
	parallel(len(pids), func(i int, buf *[]byte) {
		pid := pids[i]
		if pid == self {
			return
		}
		env, err := readInto(fs.Path(pid, "environ"), *buf)
		if err == nil && len(env) == 0 {
			if fs.Executing(pid) {
				mu.Lock()
				executing = append(executing, pid)
				mu.Unlock()
				return
			}
			// The execve may have finished between the two reads.
			env, err = readInto(fs.Path(pid, "environ"), env)
		}
		*buf = env
		if err != nil || !HasEntries(env, want) {
			return
		}
		st, err := fs.Stat(pid)
		if err != nil || st.Zombie() {
			return
		}
		mu.Lock()
		matched = append(matched, Member{PID: pid, StartTime: st.StartTime})
		mu.Unlock()
	})
	return matched, executing
}
