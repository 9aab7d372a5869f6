//go:build linux || darwin

package spawn

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// inherited is what tether's caller left it: the signals it ignores and
// those it blocks. A signal ignored when tether starts stays ignored in
// the command and is not forwarded (nohup); one blocked stays blocked.
// Go's runtime replaces an inherited SIG_IGN with its own handler before
// any of tether's code runs for every signal but HUP, INT and the job
// control signals (CONT, TSTP, TTIN, TTOU), and unblocks the ones it must
// handle; what the runtime left is what tether can honour.
type inherited struct{ ignored, blocked uint64 }

func bit(sig syscall.Signal) uint64 { return 1 << (uint(sig) - 1) }

// toForward are the signals Supervise catches to pass on to the command's
// group: every one it can, as dumb-init does, but those its caller left
// ignored or blocked; the common ones first, then the rest.
func (in inherited) toForward() (common, rare []os.Signal) {
	for s := syscall.Signal(1); s <= maxSignal; s++ {
		switch {
		case notForwarded[s] || (in.ignored|in.blocked)&bit(s) != 0:
		case commonSignals[s]:
			common = append(common, s)
		default:
			rare = append(rare, s)
		}
	}
	return common, rare
}

// stopSignal reports whether sig stops a process by default: the job
// control signals a terminal or kill(1) sends.
func stopSignal(sig syscall.Signal) bool {
	return sig == unix.SIGTSTP || sig == unix.SIGTTIN || sig == unix.SIGTTOU
}
