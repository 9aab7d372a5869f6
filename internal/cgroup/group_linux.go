package cgroup

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tetherproc/tether/internal/kill"
	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/procid"
)

// stampAttr holds a run's stamp on its group: the entries of the
// marker protocol, NUL-separated as in /proc/PID/environ.
const stampAttr = "user.tether.stamp"

// Group is a run's group, made by [Create].
type Group struct {
	Dir string
	dir *os.File
}

// Create makes the group of run runID below parent, marks it with the
// run's stamp (the marker entries) and opens it for [Group.FD].
//
// The group is 0711: its files can be opened by name by everyone (a
// member of another uid reads its cpu.max and memory.max, as Go's and
// Java's runtimes do), but only its owner lists it or reads its
// extended attributes (a user.* attribute is read with the directory's
// read permission), so the stamp, and the run id in it, stay the
// owner's.
func Create(parent, runID string, stamp []string) (*Group, error) {
	dir := filepath.Join(parent, Name(runID))
	if err := os.Mkdir(dir, 0o700); err != nil {
		return nil, fmt.Errorf("make cgroup %s: %w", dir, unwrap(err))
	}
	if err := os.Chmod(dir, 0o711); err != nil {
		_ = os.Remove(dir)
		return nil, fmt.Errorf("make cgroup %s: %w", dir, unwrap(err))
	}
	g := &Group{Dir: dir}
	if err := unix.Setxattr(dir, stampAttr, []byte(strings.Join(stamp, "\x00")), 0); err != nil {
		_ = os.Remove(dir)
		if err == unix.EOPNOTSUPP {
			return nil, fmt.Errorf("stamp cgroup %s: %w (extended attributes on cgroups need Linux 5.7)", dir, err)
		}
		return nil, fmt.Errorf("stamp cgroup %s: %w", dir, err)
	}
	f, err := os.OpenFile(dir, os.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		_ = os.Remove(dir)
		return nil, fmt.Errorf("open cgroup %s: %w", dir, unwrap(err))
	}
	g.dir = f
	return g, nil
}

// FD is the group's directory, for SysProcAttr.CgroupFD: a command
// started with it is born in the group.
func (g *Group) FD() int {
	if g == nil || g.dir == nil {
		return -1
	}
	return int(g.dir.Fd())
}

// Close closes the directory; the group stays.
func (g *Group) Close() error {
	if g == nil || g.dir == nil {
		return nil
	}
	return g.dir.Close()
}

// Stamp reads the stamp of the group in dir: the marker entries its
// run was started with.
func Stamp(dir string) ([]string, error) {
	buf := make([]byte, 1024)
	for {
		n, err := unix.Getxattr(dir, stampAttr, buf)
		if err == unix.ERANGE {
			buf = make([]byte, 2*len(buf))
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("stamp of cgroup %s: %w", dir, err)
		}
		return strings.Split(string(buf[:n]), "\x00"), nil
	}
}

// Owner is the uid that owns the group in dir: a group another user
// made names nothing of anyone else's.
func Owner(dir string) (int, error) {
	var st unix.Stat_t
	if err := unix.Stat(dir, &st); err != nil {
		return -1, fmt.Errorf("cgroup %s: %w", dir, err)
	}
	return int(st.Uid), nil
}

// Procs lists the processes in the group in dir (not in groups below it).
func Procs(dir string) ([]int, error) {
	data, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	if err != nil {
		return nil, unwrap(err)
	}
	return parseProcs(data)
}

// parseProcs parses cgroup.procs; a process outside the reader's PID
// namespace is listed as 0, and left out.
func parseProcs(data []byte) ([]int, error) {
	var pids []int
	for _, f := range bytes.Fields(data) {
		pid, err := strconv.Atoi(string(f))
		if err != nil || pid < 0 {
			return nil, fmt.Errorf("cgroup.procs: bad PID %q", f)
		}
		if pid > 0 {
			pids = append(pids, pid)
		}
	}
	return pids, nil
}

// Members lists the live processes of the group in dir and of the
// groups below it, with their start times for a safe signal. Each is
// read in the group again after its start time: a PID listed by
// cgroup.procs may have changed hands before its start time was read,
// and a process elsewhere must never be taken for a member.
func (h Hierarchy) Members(pfs proc.FS, dir string) []procid.ID {
	var out []procid.ID
	_ = filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		pids, _ := Procs(path)
		for _, pid := range pids {
			st, err := pfs.Stat(pid)
			if err != nil || st.Zombie() {
				continue
			}
			if in, err := h.Of(pfs, pid); err != nil || in != dir && !strings.HasPrefix(in, dir+"/") {
				continue
			}
			out = append(out, procid.ID{PID: pid, StartTime: st.StartTime})
		}
		return nil
	})
	return out
}

// Populated reports whether any process is left in the group in dir or
// below it (cgroup.events); a group that is gone is empty.
func Populated(dir string) bool {
	data, err := os.ReadFile(filepath.Join(dir, "cgroup.events"))
	if err != nil {
		return false
	}
	return populated(data)
}

func populated(data []byte) bool {
	for _, line := range bytes.Split(data, []byte{'\n'}) {
		if v, ok := bytes.CutPrefix(line, []byte("populated ")); ok {
			return string(v) != "0"
		}
	}
	return true
}

// Kill ends every process in the group in dir and below it at once,
// with cgroup.kill (Linux 5.14+), which also takes what they fork while
// it runs. Where there is none, the group is frozen, so that nothing in
// it can fork, each member is sent SIGKILL (which a frozen process
// still dies of), and it is thawed, until it is empty.
func Kill(dir string) error {
	err := write(dir, "cgroup.kill", "1")
	switch {
	case err == nil, !exists(dir):
		return nil
	case !errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("kill cgroup %s: %w", dir, err)
	}
	freezeAndKill(dir)
	return nil
}

// freezeAndKill is Kill where there is no cgroup.kill: freeze, so that
// no member can fork, SIGKILL each, thaw, until the group is empty.
func freezeAndKill(dir string) {
	h, err := Host()
	if err != nil {
		return
	}
	for deadline := time.Now().Add(kill.WaitAfterKill); Populated(dir) && time.Now().Before(deadline); {
		_ = write(dir, "cgroup.freeze", "1")
		for _, m := range h.Members(proc.Host(), dir) {
			_ = kill.Signal(m, syscall.SIGKILL)
		}
		_ = write(dir, "cgroup.freeze", "0")
		time.Sleep(10 * time.Millisecond)
	}
}

// write writes value to one of the group's files, which exist already:
// a file of cgroupfs cannot be created.
func write(dir, file, value string) error {
	f, err := os.OpenFile(filepath.Join(dir, file), os.O_WRONLY, 0)
	if err != nil {
		return unwrap(err)
	}
	_, err = f.WriteString(value)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return unwrap(err)
}

// Remove removes the group in dir, and the groups the command made
// below it, once they are empty, waiting up to timeout for the last of
// them to leave (a process leaves its group when it exits).
func Remove(dir string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		err := removeTree(dir)
		if err == nil || errors.Is(err, os.ErrNotExist) {
			return nil
		}
		if !errors.Is(err, syscall.EBUSY) || time.Now().After(deadline) {
			return fmt.Errorf("remove cgroup %s: %w", dir, err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// removeTree removes dir after the groups below it: rmdir is the only
// way to remove a group, and only an empty leaf can be.
func removeTree(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return unwrap(err)
	}
	for _, e := range entries {
		if e.IsDir() {
			if err := removeTree(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	return unwrap(syscall.Rmdir(dir))
}

// unwrap drops the path of an *os.PathError, which the callers name
// themselves.
func unwrap(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
