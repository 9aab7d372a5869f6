//go:build !linux && !darwin

package ptree

import (
	"github.com/tetherproc/tether/internal/proc"
)

// Table has nothing to take snapshots of here.
type Table struct{}

// NewTable is a Table that lists nothing.
func NewTable(fs proc.FS) *Table { return &Table{} }

// Before has nothing to do.
func (t *Table) Before() {}

// Since has nothing to do.
func (t *Table) Since(start uint64) {}

// Snapshot fails: this platform has no reader.
func (t *Table) Snapshot() (*Snapshot, error) { return ReadSnapshot(proc.Host()) }
