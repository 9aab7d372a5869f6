package callerchain

import (
	"fmt"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tetherproc/tether/internal/pidfd"
	"github.com/tetherproc/tether/internal/pollstop"
	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/trace"
	"github.com/tetherproc/tether/procid"
)

// watchChain has gone called once any process of chain exits, each
// watched through a pidfd, all of them by one goroutine blocked in
// poll(2) (a pidfd reads as ready once its process has exited), beside
// an eventfd that stop writes to. On the portable path too (the
// tetherportable tag), as the stand-in for macOS's kqueue exit events:
// an event, not a poll. A process already gone, or a link of
// the chain broken before every watch was set up, is ErrGone.
func watchChain(chain []procid.ID, ppid int, gone func()) (stop func(), err error) {
	if len(chain) == 0 {
		return func() {}, nil
	}
	if ok, why := pidfd.Pidfds(); !ok {
		trace.Printf("no pidfds (%v): the caller's chain is looked at every %v", why, chainPoll)
		return pollChain(proc.Host(), chain, gone)
	}
	w, err := openExitWatch(chain)
	if err != nil {
		return nil, err
	}
	// The pidfds are open: from now on no ancestor's death goes unseen,
	// and one that came before the pidfd_open shows too, with no second
	// read of the chain: a zombie's pidfd reads as ready at once, a
	// reaped one's PID is ESRCH, and for its PID to name another
	// process already the PID space would have had to wrap around in
	// between.
	go w.run(gone)
	// stop does not wait for the watch to end: it closes its own
	// descriptors once woken.
	return w.stop.Stop, nil
}

// exitWatch is one watch of a chain's exits: its stop, then a pidfd
// for each process.
type exitWatch struct {
	stop *pollstop.Stop
	fds  []unix.PollFd
}

// openExitWatch opens the stop and a pidfd for each process of chain.
func openExitWatch(chain []procid.ID) (*exitWatch, error) {
	stop, err := pollstop.New()
	if err != nil {
		return nil, fmt.Errorf("follow the caller's chain: %w", err)
	}
	w := &exitWatch{stop: stop, fds: []unix.PollFd{stop.PollFd()}}
	for _, m := range chain {
		fd, err := unix.PidfdOpen(m.PID, 0)
		if err == unix.ESRCH {
			stop.End(w.closePidfds)
			return nil, ErrGone
		} else if err != nil {
			stop.End(w.closePidfds)
			return nil, fmt.Errorf("follow ancestor %d: pidfd_open: %w", m.PID, err)
		}
		w.fds = append(w.fds, unix.PollFd{Fd: int32(fd), Events: unix.POLLIN})
	}
	return w, nil
}

func (w *exitWatch) closePidfds() {
	for _, p := range w.fds[1:] {
		unix.Close(int(p.Fd))
	}
}

// run waits until a process exits (gone is called, unless stop came
// first) or stop wakes it, then closes every descriptor.
func (w *exitWatch) run(gone func()) {
	for {
		_, err := unix.Poll(w.fds, -1)
		if err == unix.EINTR {
			continue
		}
		if err != nil || w.fds[0].Revents != 0 {
			w.stop.End(w.closePidfds) // stopped, or no watch possible
			return
		}
		for _, p := range w.fds[1:] {
			if p.Revents != 0 {
				if !w.stop.End(w.closePidfds) {
					gone()
				}
				return
			}
		}
	}
}

// chainPoll is how often the caller's chain is looked at where there are
// no pidfds to wait on: an ancestor's death is seen within it.
const chainPoll = 100 * time.Millisecond

// pollChain has gone called once any process of chain is gone (another
// start time at its PID, a zombie, no such process), looking every
// chainPoll, as the watchdog looks at its supervisor. One gone before
// the first look is ErrGone, as for the pidfd watch; a member
// named by its PID alone is held by the start time it has now.
func pollChain(fs proc.FS, chain []procid.ID, gone func()) (stop func(), err error) {
	held := make([]procid.ID, len(chain))
	for i, m := range chain {
		st, err := fs.Stat(m.PID)
		if err != nil || st.Zombie() || m.StartTime != 0 && st.StartTime != m.StartTime {
			return nil, ErrGone
		}
		held[i] = procid.ID{PID: m.PID, StartTime: st.StartTime}
	}
	quit := make(chan struct{})
	go func() {
		tick := time.NewTicker(chainPoll)
		defer tick.Stop()
		for {
			select {
			case <-quit:
				return
			case <-tick.C:
			}
			for _, m := range held {
				if st, err := fs.Stat(m.PID); err != nil || st.StartTime != m.StartTime || st.Zombie() {
					select {
					case <-quit: // stopped meanwhile: no TERM
					default:
						gone()
					}
					return
				}
			}
		}
	}()
	return sync.OnceFunc(func() { close(quit) }), nil
}
