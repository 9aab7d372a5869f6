package kill

import (
	"os"

	"github.com/tetherproc/tether/internal/proc"
)

// Protection is why a process is never signalled; "" for a process that
// may be.
type Protection string

// The protections.
const (
	// PID1: the init of the PID namespace, whose end would take the
	// namespace with it.
	PID1 Protection = "pid-1"
	// Self: the caller.
	Self Protection = "self"
	// Ancestor: an ancestor of the caller (killing the shell that runs a
	// cleanup helps no one).
	Ancestor Protection = "ancestor"
)

// Protected are the processes that are never signalled, each with its
// Protection: PID 1, the caller and the caller's ancestors as fs numbers
// them. Policy of what is signalled, kept beside the signalling: the
// readers in proc list, they do not judge.
func Protected(fs proc.FS) map[int]Protection {
	prot := map[int]Protection{1: PID1}
	prot[os.Getpid()] = Self
	for pid, n := os.Getppid(), 0; pid > 1 && n < 4096; n++ {
		prot[pid] = Ancestor
		p, err := fs.Process(pid)
		if err != nil {
			break
		}
		pid = p.PPID
	}
	return prot
}
