//go:build darwin

package proc

import (
	"bytes"
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/tetherproc/tether/procid"
)

// Snapshot reads the whole table in one sysctl, kern.proc.all: each
// process's kinfo_proc, the same record kern.proc.pid gives of one.
func (fs FS) Snapshot() (*Snapshot, error) {
	procs, err := unix.SysctlKinfoProcSlice("kern.proc.all")
	if err != nil {
		return nil, fmt.Errorf("sysctl kern.proc.all: %w", err)
	}
	out := make([]Process, 0, len(procs))
	for i := range procs {
		if p := processOfKinfo(&procs[i]); p.PID > 0 {
			out = append(out, p)
		}
	}
	return newSnapshot(out, false), nil
}

// processOfKinfo is what a kinfo_proc tells of a process. StartTime is
// the start time in microseconds since the epoch; UID the real uid, as
// on Linux.
func processOfKinfo(k *unix.KinfoProc) Process {
	comm := k.Proc.P_comm[:]
	if i := bytes.IndexByte(comm, 0); i >= 0 {
		comm = comm[:i]
	}
	tv := k.Proc.P_starttime
	return Process{
		PID:       int(k.Proc.P_pid),
		PPID:      int(k.Eproc.Ppid),
		PGID:      int(k.Eproc.Pgid),
		UID:       int(k.Eproc.Pcred.P_ruid),
		StartTime: uint64(tv.Sec)*1e6 + uint64(tv.Usec),
		Zombie:    k.Proc.P_stat == sZomb,
		Comm:      string(comm),
	}
}

// Table takes snapshots one after another for a caller that looks only
// at the processes started since a moment. On macOS each is the whole
// table, from one sysctl, less the processes there were before the
// moment (Before): by PID and start time, since macOS's start times are
// wall-clock time, which can be set back, and cannot be compared with
// the moment's (see the Linux Table for how it differs there).
type Table struct {
	fs  FS
	old map[procid.ID]bool
}

// NewTable is a Table of every process, until Before is called.
func (fs FS) NewTable() *Table { return &Table{fs: fs, old: map[procid.ID]bool{}} }

// Before takes every process there is now as older than the moment:
// called before it, it leaves them out of every snapshot.
func (t *Table) Before() {
	snap, err := t.fs.Snapshot()
	if err != nil {
		return
	}
	snap.Each(func(p Process) { t.old[procid.ID{PID: p.PID, StartTime: p.StartTime}] = true })
}

// Since has nothing to do: start times are not compared here.
func (t *Table) Since(start uint64) {}

// Snapshot lists every process but those there were before the moment.
func (t *Table) Snapshot() (*Snapshot, error) {
	procs, err := unix.SysctlKinfoProcSlice("kern.proc.all")
	if err != nil {
		return nil, fmt.Errorf("sysctl kern.proc.all: %w", err)
	}
	out := make([]Process, 0, 16)
	old := make(map[procid.ID]bool, len(t.old))
	for i := range procs {
		p := processOfKinfo(&procs[i])
		if p.PID <= 0 {
			continue
		}
		if m := (procid.ID{PID: p.PID, StartTime: p.StartTime}); t.old[m] {
			old[m] = true
			continue
		}
		out = append(out, p)
	}
	t.old = old
	return newSnapshot(out, false), nil
}
