package kill

import (
	"os"

	"github.com/tetherproc/tether/internal/proc"
)

// Protected are the processes that are never signalled, each with why:
// PID 1, the caller and the caller's ancestors as fs numbers them
// (killing the shell that runs a cleanup helps no one). Policy of what
// is signalled, kept beside the signalling: the readers in proc list,
// they do not judge.
func Protected(fs proc.FS) map[int]string {
	prot := map[int]string{1: "PID 1 is never signalled"}
	prot[os.Getpid()] = "tether itself"
	for pid, n := os.Getppid(), 0; pid > 1 && n < 4096; n++ {
		prot[pid] = "an ancestor of tether"
		p, err := fs.Process(pid)
		if err != nil {
			break
		}
		pid = p.PPID
	}
	return prot
}
