package pidfd

import (
	"os"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/trace"
)

// Kernels and sandboxes differ in what they offer: pidfd_open and
// pidfd_send_signal came with Linux 5.3, and a container whose system-call
// allow-list predates them refuses them with EPERM (systemd keeps a
// fallback for exactly this). What this kernel offers is found once, at
// first use, by asking for it, and every caller takes the same path from
// then on: tether run, its watchdog, reclaim, wait, check and the library.

// Pidfds reports whether processes can be held and signalled through
// pidfds here; when not, why (the call that failed, and its error).
// Without them a process is held by its PID and start time, and signalled
// with kill(2) right after a fresh look at both (see Handle).
func Pidfds() (bool, error) {
	p := pidfds()
	return p.err == nil, p.err
}

type pidfdAnswer struct{ err error }

var pidfds = sync.OnceValue(func() pidfdAnswer {
	fd, err := unix.PidfdOpen(os.Getpid(), 0)
	if err != nil {
		return noPidfds(proc.Refused("pidfd_open", err))
	}
	defer unix.Close(fd)
	if err := unix.PidfdSendSignal(fd, 0, nil, 0); err != nil {
		return noPidfds(proc.Refused("pidfd_send_signal", err))
	}
	return pidfdAnswer{}
})

func noPidfds(err error) pidfdAnswer {
	trace.Printf("no pidfds here (%v): processes are held by PID and start time, and signalled with kill(2) right after a fresh look at both", err)
	return pidfdAnswer{err}
}
