//go:build unix && !linux

package reclaim

import (
	"fmt"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tetherproc/tether/probe"
)

// terminate has no pidfd here: it checks the process again immediately
// before each kill(2), which narrows the recycled-PID window to the time
// between the two calls.
func terminate(r *Result, opts Options, act Action) {
	for _, sig := range []syscall.Signal{act.Signal, unix.SIGKILL} {
		if ok, why := stillSelected(r.Process, opts); !ok {
			if why == "gone" || why == "zombie" {
				r.Outcome = map[bool]Outcome{true: Exited, false: AlreadyGone}[len(r.Signals) > 0]
				return
			}
			r.Outcome, r.Why = Changed, why
			return
		}
		if err := unix.Kill(r.PID, sig); err != nil {
			r.Outcome, r.Why = Failed, fmt.Sprintf("signal %s: %v", signalName(sig), err)
			return
		}
		r.Signals = append(r.Signals, signalName(sig))
		wait := act.Grace
		if sig == unix.SIGKILL {
			wait = 10 * time.Second
		}
		if gone(r.PID, r.StartTime, wait) {
			r.Outcome = Exited
			return
		}
	}
	r.Outcome, r.Why = Survived, "still alive after SIGKILL"
}

func gone(pid int, start uint64, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		p, err := probe.ReadProcess(pid)
		if err != nil || p.Zombie || p.Start != start {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return false
}

func signalName(s syscall.Signal) string {
	return strings.TrimPrefix(unix.SignalName(s), "SIG")
}
