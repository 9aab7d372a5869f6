//go:build darwin

package ptree

import (
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/procid"
)

// Table takes snapshots one after another for a caller that looks only
// at the processes started since a moment. On macOS each is the whole
// table, from one sysctl, less the processes there were before the
// moment (Before): by PID and start time, since macOS's start times are
// wall-clock time, which can be set back, and cannot be compared with
// the moment's (see the Linux Table for how it differs there).
type Table struct {
	fs  proc.FS
	old map[procid.ID]bool
}

// NewTable is a Table of every process, until Before is called.
func NewTable(fs proc.FS) *Table { return &Table{fs: fs, old: map[procid.ID]bool{}} }

// Before takes every process there is now as older than the moment:
// called before it, it leaves them out of every snapshot.
func (t *Table) Before() {
	snap, err := ReadSnapshot(t.fs)
	if err != nil {
		return
	}
	snap.Each(func(p proc.Process) { t.old[procid.ID{PID: p.PID, StartTime: p.StartTime}] = true })
}

// Since has nothing to do: start times are not compared here.
func (t *Table) Since(start uint64) {}

// Snapshot lists every process but those there were before the moment.
func (t *Table) Snapshot() (*Snapshot, error) {
	procs, err := unix.SysctlKinfoProcSlice("kern.proc.all")
	if err != nil {
		return nil, fmt.Errorf("sysctl kern.proc.all: %w", err)
	}
	out := make([]proc.Process, 0, 16)
	old := make(map[procid.ID]bool, len(t.old))
	for i := range procs {
		p := proc.ProcessOfKinfo(&procs[i])
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
