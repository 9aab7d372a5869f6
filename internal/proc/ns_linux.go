//go:build linux

package proc

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// ErrNoNamespaces means the kernel shows no PID namespaces (no ns links
// in /proc): every process is in the one namespace there is.
var ErrNoNamespaces = errors.New("no PID namespaces in this /proc")

// readNamespace reads a pid namespace link, "pid:[4026531836]", as its
// inode number.
func readNamespace(path string) (uint64, error) {
	link, err := os.Readlink(path)
	if errors.Is(err, unix.ENOENT) && strings.HasSuffix(path, "/ns/pid") {
		if _, serr := os.Stat(strings.TrimSuffix(path, "/pid")); errors.Is(serr, unix.ENOENT) {
			return 0, ErrNoNamespaces
		}
	}
	if err != nil {
		return 0, err
	}
	v, ok := strings.CutPrefix(link, "pid:[")
	v, ok2 := strings.CutSuffix(v, "]")
	n, err := strconv.ParseUint(v, 10, 64)
	if !ok || !ok2 || err != nil {
		return 0, fmt.Errorf("read %s: %q is not a PID namespace", path, link)
	}
	return n, nil
}

// PIDNamespace is the inode number that names pid's PID namespace: the
// one in which it, and every process it starts, has its own PIDs.
func (fs FS) PIDNamespace(pid int) (uint64, error) {
	return readNamespace(fs.Path(pid, "ns/pid"))
}

// SelfPIDNamespace is the caller's PID namespace.
func (fs FS) SelfPIDNamespace() (uint64, error) {
	return readNamespace(fs.root + "/self/ns/pid")
}

// TableNamespace is the PID namespace whose PIDs the table shows: that of
// whoever mounted it, which need not be the caller's (a container that
// shares the host's /proc).
func (fs FS) TableNamespace() (uint64, error) {
	data, err := ReadShown(fs.root + "/self/status")
	if err != nil {
		return 0, err
	}
	st, err := ParseStatus(data)
	if err != nil {
		return 0, err
	}
	if len(st.NSpid) <= 1 {
		// The caller's PID in this table is its PID where it runs.
		return fs.SelfPIDNamespace()
	}
	// The caller runs in a namespace nested below the table's, whose
	// first process is PID 1 of this table.
	return fs.PIDNamespace(1)
}

// FindInNamespace looks for the process whose own PID, in namespace ns,
// is nspid and whose start time is startTime, and returns its PID in this
// table; near names a process known to be in ns or nested below it (the
// tethered one), where the search for ns starts. visible says that ns is
// seen in this table at all (it is the table's or nested below it);
// complete that a process not found is gone rather than out of sight.
//
// The namespace link of a process can be unreadable even to root (an init
// that is not dumpable), so membership is read from NSpid, which status
// shows to everyone: a member of ns has as many NSpid entries as ns is
// deep. A candidate whose link cannot be read but whose PID and start
// time match is taken for the supervisor: the mistake that could make is
// to call a stranded process supervised, never the other way round.
func (fs FS) FindInNamespace(ns uint64, nspid int, startTime uint64, near int) (pid int, visible, complete bool) {
	depth := fs.namespaceDepth(ns, near)
	if depth == 0 {
		return 0, false, false
	}
	pids, err := fs.PIDs()
	if err != nil {
		return 0, true, false
	}
	complete = !fs.hidesProcesses()
	for _, p := range pids {
		st, err := fs.Status(p)
		if err != nil {
			complete = complete && errors.Is(err, ErrGone)
			continue
		}
		if len(st.NSpid) != depth || st.NSpid[depth-1] != nspid || st.TGID != p {
			continue
		}
		pns, err := fs.PIDNamespace(p)
		if err == nil && pns == ns {
			return p, true, true
		}
		if err != nil && !errors.Is(err, unix.ENOENT) {
			if s, err := fs.Stat(p); err == nil && s.StartTime == startTime {
				return p, true, true
			}
		}
	}
	return 0, true, complete
}

// namespaceDepth is how many NSpid entries a member of ns has in this
// table, 0 when no member of ns can be found: from near, or from its
// ancestors, which are the only processes that can be in a namespace
// above its own.
func (fs FS) namespaceDepth(ns uint64, near int) int {
	for p, n := near, 0; p > 0 && n < 4096; n++ {
		st, err := fs.Status(p)
		if err != nil {
			return 0
		}
		if pns, err := fs.PIDNamespace(p); err == nil && pns == ns {
			return len(st.NSpid)
		}
		s, err := fs.Stat(p)
		if err != nil {
			return 0
		}
		p = s.PPID
	}
	return 0
}

// hidesProcesses reports whether this table may leave other users'
// processes out of its listing (mounted with hidepid) for the caller.
func (fs FS) hidesProcesses() bool {
	if canTrace() {
		return false // CAP_SYS_PTRACE sees through hidepid
	}
	mounts, err := fs.Mounts()
	if err != nil {
		return true
	}
	for _, m := range mounts {
		if m.Point == fs.root && m.Hides() {
			return true
		}
	}
	return false
}

// CheckOwn fails when this table numbers processes in a PID namespace
// that encloses the caller's (a new namespace with the old /proc still
// mounted): a PID read there names another process than the same number
// in a pidfd_open, a kill or a wait, and nothing may be signalled on it.
func (fs FS) CheckOwn() error {
	data, err := ReadShown(fs.root + "/self/status")
	if err != nil {
		return err
	}
	return fs.CheckOwnStatus(data)
}

// CheckOwnStatus is CheckOwn on the caller's status file, read already.
func (fs FS) CheckOwnStatus(data []byte) error {
	st, err := ParseStatus(data)
	if err != nil {
		return err
	}
	if len(st.NSpid) > 1 {
		return fmt.Errorf("%s numbers processes in an enclosing PID namespace, not this one (PID %d here is %d there): mount a /proc for this namespace (unshare --mount-proc)", fs.root, st.NSpid[len(st.NSpid)-1], st.NSpid[0])
	}
	return nil
}

// canTrace reports whether the caller has CAP_SYS_PTRACE in effect.
func canTrace() bool {
	data, err := ReadShown("/proc/self/status")
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "CapEff:"); ok {
			caps, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			return err == nil && caps&(1<<unix.CAP_SYS_PTRACE) != 0
		}
	}
	return false
}
