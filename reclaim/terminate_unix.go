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
		if outcome, why := recheck(r.Process, opts); outcome != "" {
			if outcome == AlreadyGone && len(r.Signals) > 0 {
				outcome = Exited
			}
			r.Outcome, r.Why = outcome, why
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
