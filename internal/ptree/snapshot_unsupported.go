//go:build !linux && !darwin

package ptree

import (
	"github.com/tetherproc/tether/internal/proc"
)

// ReadSnapshot fails as the table's listing fails: this platform has no
// reader.
func ReadSnapshot(fs proc.FS) (*Snapshot, error) {
	_, err := fs.PIDs()
	return nil, err
}
