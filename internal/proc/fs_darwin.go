//go:build darwin

package proc

import (
	"errors"
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// MaxPID returns the largest PID macOS hands out.
func (fs FS) MaxPID() int { return 99998 }

// sZomb is SZOMB of <sys/proc.h>, which x/sys does not export.
const sZomb = 5

func existsOr(pid int, what string, err error) error {
	kind := ErrUnverifiable
	if kerr := unix.Kill(pid, 0); kerr == unix.ESRCH {
		kind = ErrGone
	}
	return &readError{what: what, kind: kind, err: err}
}

// Process reads the kern.proc.pid sysctl; the root is not used. StartTime
// is the start time in microseconds since the epoch.
func (fs FS) Process(pid int) (Process, error) {
	what := fmt.Sprintf("sysctl kern.proc.pid %d", pid)
	if pid <= 0 {
		return Process{}, &readError{what: what, kind: ErrGone, err: unix.ESRCH}
	}
	k, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil {
		// A missing PID comes back as an empty answer (EIO from x/sys).
		return Process{}, existsOr(pid, what, err)
	}
	if int(k.Proc.P_pid) != pid {
		return Process{}, existsOr(pid, what, unix.ESRCH)
	}
	return ProcessOfKinfo(k), nil
}

func readProcArgs(pid int) (ProcArgs, error) {
	what := fmt.Sprintf("sysctl kern.procargs2 %d", pid)
	data, err := unix.SysctlRaw("kern.procargs2", pid)
	if err != nil {
		// EINVAL covers a missing PID, a zombie and another user's
		// process (unless root) alike. A withheld environment is no
		// error: see Environ.
		return ProcArgs{}, existsOr(pid, what, err)
	}
	pa, err := ParseProcArgs2(data)
	if err != nil {
		return ProcArgs{}, &readError{what: what, kind: ErrUnverifiable, err: err}
	}
	return pa, nil
}

// Environ reads the environment pid was started with.
func (fs FS) Environ(pid int) ([]string, error) {
	pa, err := readProcArgs(pid)
	if err != nil {
		return nil, err
	}
	if len(pa.Env) == 0 && len(pa.Args) > 0 {
		// The kernel withholds the environment of a CS_RESTRICT process
		// from every other process while System Integrity Protection
		// is on (sysctl_procargsx in XNU's kern_sysctl.c): the answer
		// ends after argv, root or not. (Apple's hardened runtime,
		// CS_RUNTIME, does not count.) An empty environment (env -i)
		// and one written over with NULs read the same: unverifiable.
		return nil, &readError{what: fmt.Sprintf("sysctl kern.procargs2 %d", pid), kind: ErrUnverifiable, err: errors.New("environment withheld")}
	}
	return pa.Env, nil
}

// Resident is not read on macOS (no statm): ErrUnverifiable.
func (fs FS) Resident(pid int) (uint64, error) { return 0, ErrUnverifiable }

// Cmdline reads pid's arguments, for display.
func (fs FS) Cmdline(pid int) ([]string, error) {
	pa, err := readProcArgs(pid)
	return pa.Args, err
}

// Stat gives the fields of Stat that macOS has, from Process.
func (fs FS) Stat(pid int) (Stat, error) {
	p, err := fs.Process(pid)
	if err != nil {
		return Stat{}, err
	}
	st := Stat{PID: pid, Comm: p.Comm, State: 'S', PPID: p.PPID, PGID: p.PGID, StartTime: p.StartTime}
	if p.Zombie {
		st.State = 'Z'
	}
	return st, nil
}

// SelfStat is Stat of the calling process.
func (fs FS) SelfStat() (Stat, error) { return fs.Stat(os.Getpid()) }

// StartedAt turns a start time (microseconds since the epoch) into time.
func (fs FS) StartedAt(start uint64) (time.Time, error) {
	return time.UnixMicro(int64(start)), nil
}

// Executing is always false here: kern.procargs2 gives the arguments and
// the environment in one read, and no equivalent of Linux's window, where
// both read as empty, is known to tether.
func (fs FS) Executing(pid int) bool { return false }

// Status gives the fields of Status that macOS has, from Process.
func (fs FS) Status(pid int) (Status, error) {
	p, err := fs.Process(pid)
	if err != nil {
		return Status{}, err
	}
	return Status{TGID: pid, UID: p.UID}, nil
}

// Young is false: no execve window is known here (Executing).
func (fs FS) Young(start uint64) bool { return false }

// Age is unknown here: start times are not ticks since boot.
func (fs FS) Age(start uint64) (time.Duration, bool) { return 0, false }
