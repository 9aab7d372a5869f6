//go:build linux

package probe

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// Supported reports whether this platform can read a process's identity.
func Supported() bool { return true }

// pidMaxLimit is the kernel's PID_MAX_LIMIT, the ceiling of pid_max.
const pidMaxLimit = 1 << 22

// MaxPID returns the largest PID the kernel hands out: pid_max - 1.
func MaxPID() int {
	data, err := os.ReadFile("/proc/sys/kernel/pid_max")
	if err == nil {
		if n, err := strconv.Atoi(string(bytes.TrimSpace(data))); err == nil && n > 1 {
			return n - 1
		}
	}
	return pidMaxLimit
}

func procPath(pid int, file string) string {
	return "/proc/" + strconv.Itoa(pid) + "/" + file
}

// readProcFile reads /proc/PID/FILE and classifies a failure: ENOENT and
// ESRCH are ErrGone unless the process still answers kill(pid, 0) (hidepid
// hides other users' PIDs that way), and a denied read is ErrUnverifiable.
func readProcFile(pid int, file string) ([]byte, error) {
	path := procPath(pid, file)
	data, err := os.ReadFile(path)
	if err == nil {
		return data, nil
	}
	kind := ErrUnverifiable
	switch {
	case errors.Is(err, unix.ESRCH):
		kind = ErrGone
	case errors.Is(err, unix.ENOENT):
		if kerr := unix.Kill(pid, 0); kerr == unix.ESRCH {
			kind = ErrGone
		} else {
			err = fmt.Errorf("%w, yet the process exists (hidden from this /proc)", err)
		}
	}
	return nil, &readError{what: "read " + path, kind: kind, err: unwrapPathError(err)}
}

func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// ReadProcess reads /proc/PID/stat and /proc/PID/status.
func ReadProcess(pid int) (Process, error) {
	if pid <= 0 {
		return Process{}, fmt.Errorf("read process %d: %w", pid, ErrGone)
	}
	st, err := ReadStat(pid)
	if err != nil {
		return Process{}, err
	}
	data, err := readProcFile(pid, "status")
	if err != nil {
		return Process{}, err
	}
	status, err := ParseStatus(data)
	if err != nil {
		return Process{}, &readError{what: "read " + procPath(pid, "status"), kind: ErrUnverifiable, err: err}
	}
	if status.Tgid != pid {
		return Process{}, &ThreadError{TID: pid, Tgid: status.Tgid}
	}
	return Process{
		PID:          pid,
		PPID:         st.PPID,
		PGID:         st.PGRP,
		Session:      st.Session,
		UID:          status.UID,
		Start:        st.Start,
		Zombie:       st.Zombie(),
		KernelThread: st.KernelThread(),
		Comm:         st.Comm,
	}, nil
}

// ReadStat reads /proc/PID/stat alone: enough to see whether the process
// read a moment ago still holds the PID (same start time) or has exited.
// Unlike ReadProcess it does not tell a thread id from a process id.
func ReadStat(pid int) (Stat, error) {
	data, err := readProcFile(pid, "stat")
	if err != nil {
		return Stat{}, err
	}
	st, err := ParseStat(data)
	if err != nil {
		return Stat{}, &readError{what: "read " + procPath(pid, "stat"), kind: ErrUnverifiable, err: err}
	}
	return st, nil
}

// ReadEnviron reads the environment pid was started with. ErrGone covers
// a zombie too (the kernel answers ESRCH for its environ): read the
// process again to tell the two apart. A process in the middle of an
// execve gives ErrExecuting, never an empty environment that is not its
// own.
func ReadEnviron(pid int) ([]string, error) {
	data, err := readProcFile(pid, "environ")
	if err == nil && len(data) == 0 {
		if Executing(pid) {
			return nil, &readError{what: "read " + procPath(pid, "environ"), kind: ErrUnverifiable, err: ErrExecuting}
		}
		// The execve may have finished between the two reads.
		data, err = readProcFile(pid, "environ")
	}
	if err != nil {
		return nil, err
	}
	return ParseEnviron(data), nil
}

// ReadCmdline reads pid's command line, for display.
func ReadCmdline(pid int) ([]string, error) {
	data, err := readProcFile(pid, "cmdline")
	if err != nil {
		return nil, err
	}
	return ParseCmdline(data), nil
}

// userHZ is the unit of starttime: USER_HZ, 100 on every Linux ABI.
const userHZ = 100

// StartedAt turns a Start value into wall-clock time: the boot time
// (btime of /proc/stat) plus starttime clock ticks.
func StartedAt(start uint64) (time.Time, error) {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return time.Time{}, err
	}
	for _, line := range bytes.Split(data, []byte{'\n'}) {
		if v, ok := bytes.CutPrefix(line, []byte("btime ")); ok {
			btime, err := strconv.ParseInt(string(bytes.TrimSpace(v)), 10, 64)
			if err != nil {
				return time.Time{}, fmt.Errorf("parse btime %q: %w", v, err)
			}
			return time.Unix(btime, 0).Add(time.Duration(start) * time.Second / userHZ), nil
		}
	}
	return time.Time{}, fmt.Errorf("no btime in /proc/stat")
}

// Executing reports whether pid is inside an execve: its new image is in
// place but has not yet laid out its arguments and environment, so both
// read as empty. Until then nothing can tell a tethered process from a
// foreign one, and an empty environment read in that window must not be
// taken for the process's own. Kernel threads and zombies, whose files
// are empty for good, are not executing.
func Executing(pid int) bool {
	data, err := readProcFile(pid, "cmdline")
	if err != nil || len(data) > 0 {
		return false
	}
	st, err := ReadStat(pid)
	return err == nil && !st.KernelThread() && !st.Zombie()
}
