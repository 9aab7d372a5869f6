//go:build linux

package proc

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// pidMaxLimit is the kernel's PID_MAX_LIMIT, the ceiling of pid_max.
const pidMaxLimit = 1 << 22

// MaxPID returns the largest PID the kernel hands out: pid_max - 1.
func (fs FS) MaxPID() int {
	data, err := ReadPlain(fs.root + "/sys/kernel/pid_max")
	if err == nil {
		if n, err := strconv.Atoi(string(bytes.TrimSpace(data))); err == nil && n > 1 {
			return n - 1
		}
	}
	return pidMaxLimit
}

// Path is the path of FILE of process pid.
func (fs FS) Path(pid int, file string) string {
	return fs.root + "/" + strconv.Itoa(pid) + "/" + file
}

// ReadFile reads FILE of process pid and classifies a failure: ENOENT
// and ESRCH are ErrGone unless the process still answers kill(pid, 0)
// (hidepid hides other users' PIDs that way), and a denied read is
// ErrUnverifiable.
func (fs FS) ReadFile(pid int, file string) ([]byte, error) {
	path := fs.Path(pid, file)
	read := ReadPlain
	if file == "stat" || file == "status" || file == "cgroup" {
		read = ReadShown
	}
	data, err := read(path)
	if err == nil {
		return data, nil
	}
	kind := ErrUnverifiable
	switch {
	case errors.Is(err, unix.ESRCH):
		kind = ErrGone
	case errors.Is(err, unix.ENOENT):
		if !fs.live {
			kind = ErrGone
		} else if kerr := unix.Kill(pid, 0); kerr == unix.ESRCH {
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

// Process reads the stat and status files of pid. A thread id gives a
// *ThreadError: a thread is not a process.
func (fs FS) Process(pid int) (Process, error) {
	if pid <= 0 {
		return Process{}, fmt.Errorf("read process %d: %w", pid, ErrGone)
	}
	st, err := fs.Stat(pid)
	if err != nil {
		return Process{}, err
	}
	status, err := fs.Status(pid)
	if err != nil {
		return Process{}, err
	}
	if status.TGID != pid {
		return Process{}, &ThreadError{TID: pid, TGID: status.TGID}
	}
	return Process{
		PID:          pid,
		PPID:         st.PPID,
		PGID:         st.PGID,
		Session:      st.Session,
		UID:          status.UID,
		StartTime:    st.StartTime,
		Zombie:       st.Zombie(),
		KernelThread: st.KernelThread(),
		Comm:         st.Comm,
		NSpid:        status.NSpid,
	}, nil
}

// Stat reads the stat file of pid alone: enough to see whether the
// process read a moment ago still holds the PID (same start time) or has
// exited. Unlike Process it does not tell a thread id from a process id.
func (fs FS) Stat(pid int) (Stat, error) {
	data, err := fs.ReadFile(pid, "stat")
	if err != nil {
		return Stat{}, err
	}
	st, err := ParseStat(data)
	if err != nil {
		return Stat{}, &readError{what: "read " + fs.Path(pid, "stat"), kind: ErrUnverifiable, err: err}
	}
	return st, nil
}

// Status reads the status file of pid.
func (fs FS) Status(pid int) (Status, error) {
	data, err := fs.ReadFile(pid, "status")
	if err != nil {
		return Status{}, err
	}
	st, err := ParseStatus(data)
	if err != nil {
		return Status{}, &readError{what: "read " + fs.Path(pid, "status"), kind: ErrUnverifiable, err: err}
	}
	return st, nil
}

// Environ reads the environment pid was started with. ErrGone covers a
// zombie too (the kernel answers ESRCH for its environ): read the process
// again to tell the two apart. A process in the middle of an execve gives
// ErrExecuting, never an empty environment that is not its own.
func (fs FS) Environ(pid int) ([]string, error) {
	data, err := fs.ReadFile(pid, "environ")
	if err == nil && len(data) == 0 {
		if fs.Executing(pid) {
			return nil, &readError{what: "read " + fs.Path(pid, "environ"), kind: ErrUnverifiable, err: ErrExecuting}
		}
		// The execve may have finished between the two reads.
		data, err = fs.ReadFile(pid, "environ")
	}
	if err != nil {
		return nil, err
	}
	return ParseEnviron(data), nil
}

// Resident is pid's resident memory in bytes (statm's resident pages).
func (fs FS) Resident(pid int) (uint64, error) {
	data, err := fs.ReadFile(pid, "statm")
	if err != nil {
		return 0, err
	}
	pages, err := ParseStatm(data)
	return pages * uint64(os.Getpagesize()), err
}

// Cmdline reads pid's command line, for display.
func (fs FS) Cmdline(pid int) ([]string, error) {
	data, err := fs.ReadFile(pid, "cmdline")
	if err != nil {
		return nil, err
	}
	return ParseCmdline(data), nil
}

// userHZ is the unit of starttime: USER_HZ, 100 on every Linux ABI.
const userHZ = 100

// StartedAt turns a start time into wall-clock time: the boot time (btime
// of the table's stat file) plus starttime clock ticks.
func (fs FS) StartedAt(start uint64) (time.Time, error) {
	data, err := ReadShown(fs.root + "/stat")
	if err != nil {
		return time.Time{}, err
	}
	for _, line := range bytes.Split(data, []byte{'\n'}) {
		if v, ok := bytes.CutPrefix(line, []byte("btime ")); ok {
			btime, err := strconv.ParseInt(string(bytes.TrimSpace(v)), 10, 64)
			if err != nil {
				return time.Time{}, fmt.Errorf("parse btime %q of %s/stat: %w", v, fs.root, err)
			}
			return time.Unix(btime, 0).Add(time.Duration(start) * time.Second / userHZ), nil
		}
	}
	return time.Time{}, fmt.Errorf("no btime in %s/stat", fs.root)
}

// ExecWindow is how young a process must be for an empty environment to
// be waited out as an execve in progress. The kernel lays the new image's
// arguments out in microseconds; a process that reads as empty for
// longer unmapped them on purpose (or is stuck), and waiting on it would
// be waiting on whoever made it, as often as they like.
const ExecWindow = 3 * time.Second

// Young reports whether the process that started at start (ticks since
// boot) is younger than ExecWindow: one whose empty environment may be
// an execve's, to be waited out or scanned again.
func (fs FS) Young(start uint64) bool {
	age, ok := fs.Age(start)
	return ok && age < ExecWindow
}

// Age is how long ago the process that started at start (ticks since
// boot) started, to the tick, read against the table's uptime; false
// when the uptime cannot be read.
func (fs FS) Age(start uint64) (time.Duration, bool) {
	data, err := ReadShown(fs.root + "/uptime")
	if err != nil {
		return 0, false
	}
	f, _, _ := bytes.Cut(bytes.TrimSpace(data), []byte{' '})
	up, err := strconv.ParseFloat(string(f), 64)
	if err != nil {
		return 0, false
	}
	return time.Duration((up - float64(start)/userHZ) * float64(time.Second)), true
}

// youngPID is Young for pid; false when it cannot be read.
func (fs FS) youngPID(pid int) bool {
	st, err := fs.Stat(pid)
	return err == nil && fs.Young(st.StartTime)
}

// Executing reports whether pid is inside an execve: its new image is in
// place but has not yet laid out its arguments and environment, so both
// read as empty. Until then nothing can tell a tethered process from a
// foreign one, and an empty environment read in that window must not be
// taken for the process's own. Kernel threads and zombies, whose files
// are empty for good, are not executing.
func (fs FS) Executing(pid int) bool {
	data, err := fs.ReadFile(pid, "cmdline")
	if err != nil || len(data) > 0 {
		return false
	}
	st, err := fs.Stat(pid)
	return err == nil && !st.KernelThread() && !st.Zombie()
}

// SelfStat reads the caller's own stat file, whatever PID the table
// gives it.
func (fs FS) SelfStat() (Stat, error) {
	data, err := ReadShown(fs.root + "/self/stat")
	if err != nil {
		return Stat{}, err
	}
	return ParseStat(data)
}

// Cgroup reads the cgroup v2 path of pid, relative to the reader's
// cgroup namespace: "/" for the root.
func (fs FS) Cgroup(pid int) (string, error) {
	data, err := fs.ReadFile(pid, "cgroup")
	if err != nil {
		return "", err
	}
	path, err := ParseCgroup(data)
	if err != nil {
		return "", fmt.Errorf("cgroup of %d: %w", pid, err)
	}
	return path, nil
}

// Mounts reads the caller's mount table.
func (fs FS) Mounts() ([]Mount, error) {
	data, err := ReadPlain(fs.root + "/self/mountinfo")
	if err != nil {
		return nil, err
	}
	return ParseMountInfo(data), nil
}

// Threads counts the processes and threads of uid: what ulimit -u (the
// kernel's RLIMIT_NPROC) counts against that user.
func (fs FS) Threads(uid int) int {
	pids, _ := fs.PIDs()
	n := 0
	for _, pid := range pids {
		data, err := fs.ReadFile(pid, "status")
		if err != nil {
			continue
		}
		mine, threads := false, 1
		for _, line := range bytes.Split(data, []byte{'\n'}) {
			f := bytes.Fields(line)
			switch {
			case len(f) > 1 && string(f[0]) == "Uid:":
				mine = string(f[1]) == strconv.Itoa(uid)
			case len(f) > 1 && string(f[0]) == "Threads:":
				threads, _ = strconv.Atoi(string(f[1]))
			}
		}
		if mine {
			n += threads
		}
	}
	return n
}
