//go:build linux

package ptree

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strconv"

	"golang.org/x/sys/unix"

	"github.com/tetherproc/tether/internal/proc"
)

// Table takes snapshots one after another for a caller that looks only
// at the processes started since a moment: the members of a run, whose
// command started then. Each snapshot lists the processes started since
// (and, until the moment is set, every process not listed before it),
// at the cost of the table's changes rather than of its size:
//
//   - The kernel gives each process's directory in /proc an inode of its
//     own (a PID taken again is a new inode), and one listing of /proc
//     gives each entry's inode: a process that keeps its entry is the
//     same process. One found older than the moment, or listed before
//     it (Before), is never read again.
//   - The last PID handed out (/proc/loadavg) tells whether any process
//     or thread has been started since the last listing: if none has,
//     there is nothing new to list, and only the processes already known
//     to be younger are read again.
//
// Those younger are read again at each snapshot: their parent, group and
// state are the kernel's of the moment. On macOS one sysctl gives the
// whole table, and a snapshot is all of it but the processes listed
// before the moment.
type Table struct {
	fs    proc.FS
	since uint64
	// old are the entries (PID and inode) of processes older than the
	// moment; young, of those not older, read at every snapshot.
	old, young map[int]uint64
	// last is the last PID handed out at the last listing; -1 when
	// unknown, and then each snapshot lists /proc.
	last int
	buf  []byte
}

// NewTable is a Table with no moment yet: every process is read, each
// found older than the moment once it is set (Since) only once.
func NewTable(fs proc.FS) *Table {
	return &Table{fs: fs, old: map[int]uint64{}, young: map[int]uint64{}, last: -1}
}

// Before takes every process there is now as older than the moment:
// called before it, it spares reading them at all.
func (t *Table) Before() {
	entries, err := t.list()
	if err != nil {
		return
	}
	for _, e := range entries {
		t.old[e.pid] = e.ino
	}
}

// Since sets the moment: the start time of the first process the caller
// looks at. Processes found older from then on are read once.
func (t *Table) Since(start uint64) { t.since = start }

// Snapshot lists the processes started since the table's moment.
func (t *Table) Snapshot() (*Snapshot, error) {
	var procs []proc.Process
	last := t.lastPID()
	if last >= 0 && last == t.last {
		// Nothing started since the last listing: the young are all
		// there is to read, and each still holds its PID (a PID
		// taken again would have been handed out anew).
		for pid, ino := range t.young {
			procs, _ = t.read(procs, pid, ino)
		}
		return newSnapshot(procs, true), nil
	}
	entries, err := t.list()
	if err != nil {
		return nil, err
	}
	t.last = last
	old := make(map[int]uint64, len(t.old))
	t.young = make(map[int]uint64, len(t.young))
	for _, e := range entries {
		if ino, ok := t.old[e.pid]; ok && ino == e.ino {
			old[e.pid] = ino
			continue
		}
		var isOld bool
		if procs, isOld = t.read(procs, e.pid, e.ino); isOld {
			old[e.pid] = e.ino
		}
	}
	t.old = old
	return newSnapshot(procs, true), nil
}

// read appends pid to procs when it is not older than the moment, and
// keeps it among the young; it reports whether pid is older.
func (t *Table) read(procs []proc.Process, pid int, ino uint64) (_ []proc.Process, old bool) {
	st, err := t.fs.Stat(pid)
	if err != nil {
		delete(t.young, pid)
		return procs, false // gone meanwhile: its entry, if taken again, is new
	}
	if st.StartTime < t.since {
		delete(t.young, pid)
		return procs, true
	}
	t.young[pid] = ino
	return append(procs, processOf(st)), false
}

// lastPID is the last PID handed out in the table's namespace, the last
// field of its loadavg file; -1 when it cannot be read.
func (t *Table) lastPID() int {
	if t.buf == nil {
		t.buf = make([]byte, 32<<10)
	}
	data, err := proc.ReadInto(t.fs.Root()+"/loadavg", t.buf[:0])
	if err != nil {
		return -1
	}
	f := bytes.Fields(data)
	if len(f) < 5 {
		return -1
	}
	n, err := strconv.Atoi(string(f[4]))
	if err != nil {
		return -1
	}
	return n
}

type pidIno struct {
	pid int
	ino uint64
}

// list reads the numeric entries of the table's root with their inodes.
func (t *Table) list() ([]pidIno, error) {
	fd, err := unix.Open(t.fs.Root(), unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", t.fs.Root(), err)
	}
	defer unix.Close(fd)
	if t.buf == nil {
		t.buf = make([]byte, 32<<10)
	}
	out := make([]pidIno, 0, len(t.old)+len(t.young)+64)
	for {
		n, err := unix.Getdents(fd, t.buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return out, fmt.Errorf("read directory %s: %w", t.fs.Root(), err)
		}
		if n <= 0 {
			return out, nil
		}
		out = appendPidInodes(out, t.buf[:n])
	}
}

// appendPidInodes parses struct linux_dirent64 records (d_ino, d_off,
// d_reclen, d_type, the name and its NUL) and keeps the numeric names.
func appendPidInodes(out []pidIno, buf []byte) []pidIno {
	for len(buf) >= 19 {
		reclen := int(binary.NativeEndian.Uint16(buf[16:18]))
		if reclen < 19 || reclen > len(buf) {
			return out
		}
		name := buf[19:reclen]
		for i, c := range name {
			if c == 0 {
				name = name[:i]
				break
			}
		}
		if len(name) > 0 && name[0] >= '1' && name[0] <= '9' {
			if pid, err := strconv.Atoi(string(name)); err == nil {
				out = append(out, pidIno{pid: pid, ino: binary.NativeEndian.Uint64(buf[0:8])})
			}
		}
		buf = buf[reclen:]
	}
	return out
}
