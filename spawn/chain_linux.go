//go:build linux && !tetherportable

package spawn

import (
	"fmt"
	"os"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/tetherproc/tether/internal/proc"
)

// watchChain has gone called once any process of chain exits, each
// watched through a pidfd the runtime's poller waits on (no thread is
// held per ancestor). A process already gone, or a link of the chain
// broken before every watch was set up, is errParentGone. stop ends the
// watch.
func watchChain(chain []proc.Member, ppid int, gone func()) (stop func(), err error) {
	if len(chain) == 0 {
		return func() {}, nil
	}
	files := make([]*os.File, 0, len(chain))
	closeAll := func() {
		for _, f := range files {
			f.Close()
		}
	}
	for _, m := range chain {
		fd, err := unix.PidfdOpen(m.PID, unix.PIDFD_NONBLOCK)
		if err == unix.ESRCH {
			closeAll()
			return nil, errParentGone
		} else if err != nil {
			closeAll()
			return nil, fmt.Errorf("follow ancestor %d: pidfd_open: %w", m.PID, err)
		}
		files = append(files, os.NewFile(uintptr(fd), fmt.Sprintf("pidfd:%d", m.PID)))
	}
	// The pidfds are open: from now on no ancestor's death goes
	// unseen, and one that came before shows here.
	if !chainIntact(proc.Host(), ppid, chain) {
		closeAll()
		return nil, errParentGone
	}
	var once sync.Once
	for _, f := range files {
		go func() {
			if waitReadable(f) {
				once.Do(gone)
			}
		}()
	}
	return closeAll, nil
}

// waitReadable waits until a pidfd reads as ready, which it does once
// its process exits; false when it was closed first.
func waitReadable(f *os.File) bool {
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	exited := false
	err = rc.Read(func(fd uintptr) bool {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, 0)
		exited = err == nil && n > 0
		return exited || err != nil && err != unix.EINTR
	})
	return err == nil && exited
}
