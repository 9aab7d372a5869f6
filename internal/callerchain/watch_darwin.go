//go:build darwin

package callerchain

import (
	"fmt"
	"os"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/procid"
)

// WatchParent has gone called once ppid exits, by a kqueue event
// (EVFILT_PROC, NOTE_EXIT); a parent that died before the event was
// registered is ErrGone. stop ends the watch: it triggers a user
// event on the same kqueue, which the watching thread takes as its end.
func WatchParent(ppid int, gone func()) (stop func(), err error) {
	return watchExits([]int{ppid}, func() bool { return os.Getppid() == ppid }, gone)
}

// watchChain has gone called once any process of chain exits, as
// WatchParent does for the parent.
func watchChain(chain []procid.ID, ppid int, gone func()) (stop func(), err error) {
	if len(chain) == 0 {
		return func() {}, nil
	}
	pids := make([]int, len(chain))
	for i, m := range chain {
		pids[i] = m.PID
	}
	return watchExits(pids, func() bool { return chainIntact(proc.Host(), ppid, chain) }, gone)
}

// watchExits registers an exit event for each of pids on one kqueue,
// then asks intact whether all of them were still there when it did.
func watchExits(pids []int, intact func() bool, gone func()) (stop func(), err error) {
	kq, err := unix.Kqueue()
	if err != nil {
		return nil, fmt.Errorf("follow %v: kqueue: %w", pids, err)
	}
	wake := unix.Kevent_t{Ident: 1, Filter: unix.EVFILT_USER, Flags: unix.EV_ADD | unix.EV_CLEAR}
	if _, err := unix.Kevent(kq, []unix.Kevent_t{wake}, nil, nil); err != nil {
		unix.Close(kq)
		return nil, fmt.Errorf("follow %v: kevent: %w", pids, err)
	}
	for _, pid := range pids {
		ev := unix.Kevent_t{Ident: uint64(pid), Filter: unix.EVFILT_PROC, Flags: unix.EV_ADD | unix.EV_ONESHOT, Fflags: unix.NOTE_EXIT}
		_, err = unix.Kevent(kq, []unix.Kevent_t{ev}, nil, nil)
		if err == unix.ESRCH {
			unix.Close(kq)
			return nil, ErrGone
		} else if err != nil {
			unix.Close(kq)
			return nil, fmt.Errorf("follow %d: kevent: %w", pid, err)
		}
	}
	if !intact() {
		unix.Close(kq)
		return nil, ErrGone
	}
	w := &kqueueWatch{kq: kq}
	go w.run(gone)
	return sync.OnceFunc(w.stop), nil
}

// kqueueWatch is one watch of exit events on a kqueue. The descriptor
// is closed by whichever comes last, the watch or stop: never triggered
// once closed, when its number may be another file's.
type kqueueWatch struct {
	kq     int
	mu     sync.Mutex
	closed bool
}

// run waits for the first event: an exit (gone is called) or stop's.
func (w *kqueueWatch) run(gone func()) {
	defer func() {
		w.mu.Lock()
		w.closed = true
		unix.Close(w.kq)
		w.mu.Unlock()
	}()
	out := make([]unix.Kevent_t, 1)
	for {
		n, err := unix.Kevent(w.kq, nil, out, nil)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return // no event will come: the parent is not followed
		}
		if n > 0 {
			if out[0].Filter == unix.EVFILT_PROC {
				gone()
			}
			return
		}
	}
}

// stop triggers the user event the watch ends on, while it is open.
func (w *kqueueWatch) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.closed {
		trigger := unix.Kevent_t{Ident: 1, Filter: unix.EVFILT_USER, Fflags: unix.NOTE_TRIGGER}
		_, _ = unix.Kevent(w.kq, []unix.Kevent_t{trigger}, nil, nil)
	}
}
