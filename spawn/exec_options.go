package spawn

import (
	"syscall"

	"github.com/tetherproc/tether/marker"
)

// ExecOptions is how [Exec] tethers the command it becomes: its stamp,
// its parent-death signal, and whether it outlives its parent. There is
// no run to supervise.
type ExecOptions struct {
	// Stamp is what the command's markers say, filled in as
	// [Options.Stamp] is, except that the Supervisor is by default the
	// calling process's parent, whose death the command is tied to.
	marker.Stamp
	// Markers names the marker and name variables; default TETHER and
	// TETHER_NAME.
	Markers marker.Markers
	// Signal is the command's parent-death signal; default SIGTERM.
	Signal syscall.Signal
	// OutliveParent arms no parent-death signal: the command keeps
	// running when the parent dies.
	OutliveParent bool
}

// Validate reports the first field of o that no command can be
// executed with: the stamp's name or run id, the markers' variables, or
// a Signal that is no signal. The zero value is valid. [Exec] validates
// what it is given; a caller may validate first.
func (o ExecOptions) Validate() error {
	return validateStamp(o.Stamp, o.Markers, o.Signal, 0)
}
