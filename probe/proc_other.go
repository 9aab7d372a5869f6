//go:build !linux && !darwin

package probe

import (
	"fmt"
	"runtime"
	"time"
)

// Supported reports whether this platform can read a process's identity.
// Here it cannot, and every verdict is Unverifiable.
func Supported() bool { return false }

// MaxPID returns the largest PID accepted on the command line.
func MaxPID() int { return 1<<31 - 1 }

func unsupported(pid int) error {
	return &readError{
		what: fmt.Sprintf("read process %d", pid),
		kind: ErrUnverifiable,
		err:  fmt.Errorf("reading a process's identity is not supported on %s", runtime.GOOS),
	}
}

// ReadProcess fails closed: this platform has no reader.
func ReadProcess(pid int) (Process, error) { return Process{}, unsupported(pid) }

// ReadEnviron fails closed: this platform has no reader.
func ReadEnviron(pid int) ([]string, error) { return nil, unsupported(pid) }

// ReadCmdline fails closed: this platform has no reader.
func ReadCmdline(pid int) ([]string, error) { return nil, unsupported(pid) }

// ReadStat fails closed: this platform has no reader.
func ReadStat(pid int) (Stat, error) { return Stat{}, unsupported(pid) }

// StartedAt fails: this platform has no reader.
func StartedAt(start uint64) (time.Time, error) { return time.Time{}, unsupported(0) }

// Executing is false: this platform has no reader.
func Executing(pid int) bool { return false }
