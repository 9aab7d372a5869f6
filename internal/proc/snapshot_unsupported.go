//go:build !linux && !darwin

package proc

// Snapshot fails: this platform has no reader.
func (fs FS) Snapshot() (*Snapshot, error) { return nil, unsupported(0) }

// Table has nothing to take snapshots of here.
type Table struct{}

// NewTable is a Table that lists nothing.
func (fs FS) NewTable() *Table { return &Table{} }

// Before has nothing to do.
func (t *Table) Before() {}

// Since has nothing to do.
func (t *Table) Since(start uint64) {}

// Snapshot fails: this platform has no reader.
func (t *Table) Snapshot() (*Snapshot, error) { return nil, unsupported(0) }
