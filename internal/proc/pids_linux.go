//go:build linux

package proc

import (
	"fmt"
	"runtime"
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
