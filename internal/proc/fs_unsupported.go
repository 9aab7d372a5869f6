//go:build !linux && !darwin

package proc

import (
	"fmt"
	"runtime"
	"time"
)

// MaxPID returns the largest PID accepted on the command line.
func (fs FS) MaxPID() int { return 1<<31 - 1 }

func unsupported(pid int) error {
	return &readError{
		what: fmt.Sprintf("read process %d", pid),
		kind: ErrUnverifiable,
		err:  fmt.Errorf("reading a process's identity is not supported on %s", runtime.GOOS),
	}
}

// Process fails closed: this platform has no reader.
func (fs FS) Process(pid int) (Process, error) { return Process{}, unsupported(pid) }

// Environ fails closed: this platform has no reader.
func (fs FS) Environ(pid int) ([]string, error) { return nil, unsupported(pid) }

// Cmdline fails closed: this platform has no reader.
func (fs FS) Cmdline(pid int) ([]string, error) { return nil, unsupported(pid) }

// Resident is not read here.
func (fs FS) Resident(pid int) (uint64, error) { return 0, unsupported(pid) }

// Stat fails closed: this platform has no reader.
func (fs FS) Stat(pid int) (Stat, error) { return Stat{}, unsupported(pid) }

// StartedAt fails: this platform has no reader.
func (fs FS) StartedAt(start uint64) (time.Time, error) { return time.Time{}, unsupported(0) }

// Executing is false: this platform has no reader.
func (fs FS) Executing(pid int) bool { return false }

// Status fails closed: this platform has no reader.
func (fs FS) Status(pid int) (Status, error) { return Status{}, unsupported(pid) }

// Young is false: this platform has no reader.
func (fs FS) Young(start uint64) bool { return false }

// Age is unknown here: start times are not ticks since boot.
func (fs FS) Age(start uint64) (time.Duration, bool) { return 0, false }
