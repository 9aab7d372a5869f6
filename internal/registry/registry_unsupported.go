//go:build !linux && !darwin

package registry

import "github.com/tetherproc/tether/procid"

// Writer does nothing where runs are not supported.
type Writer struct{}

// Create writes nothing where runs are not supported.
func Create(Record) (*Writer, error) { return nil, nil }

// Path is "".
func (w *Writer) Path() string { return "" }

// Members does nothing.
func (w *Writer) Members([]procid.ID) {}

// Remove does nothing.
func (w *Writer) Remove() {}

// Read finds nothing.
func Read(int) []Record { return nil }

// ReadAll finds nothing.
func ReadAll() []Record { return nil }

// Prune does nothing.
func Prune(string, int) {}

// Watchdog does nothing.
func (w *Writer) Watchdog(procid.ID) {}
