package spawn

import (
	"fmt"
	"syscall"
	"time"

	"github.com/tetherproc/tether/marker"
)

// ChildOptions is how a [Host] starts one child: its stamp (the markers
// written into its environment; its Supervisor, by default, is this
// program), its parent-death signal, how long its tree gets between TERM
// and KILL when it is stopped, and its cgroup. The zero value stamps the
// defaults, kills at once and makes no cgroup.
type ChildOptions struct {
	// Stamp is what the child's markers say; each zero field is filled
	// in: Name from the command's base name (each character outside A-Z
	// a-z 0-9 . _ - made '_'), Supervisor this program, RunID a new
	// random one (32 lowercase hex digits), PIDNamespace this program's.
	// A run id that a running child holds is refused.
	marker.Stamp
	// Markers names the marker and name variables; default TETHER and
	// TETHER_NAME.
	Markers marker.Markers
	// Signal is the child's parent-death signal; default SIGTERM.
	Signal syscall.Signal
	// Grace is how long the child's tree gets between TERM and KILL when
	// it is stopped; zero means KILL right after TERM.
	Grace time.Duration
	// Contain has the child born in a cgroup of its own, which no
	// descendant leaves and which is killed whole: ContainCgroup makes
	// it or fails the start, ContainAuto makes it where the machine
	// allows it (root, or a delegated subtree, on Linux 5.7 or later)
	// and starts the child uncontained elsewhere. ContainPIDNamespace is
	// refused: its init would stand between the program and the child,
	// whose Wait would wait for the init.
	Contain Containment
}

// Validate reports the first field of o that no child can be started
// with: the stamp's name or run id, the markers' variables, a negative
// Grace, a Signal that is no signal, or a Contain that is none of
// NoContainment, ContainAuto and ContainCgroup. The zero value is
// valid. [Host.Start] validates what it is given; a caller may validate
// first.
func (o ChildOptions) Validate() error {
	if err := validateStamp(o.Stamp, o.Markers, o.Signal, o.Grace); err != nil {
		return err
	}
	switch o.Contain {
	case NoContainment, ContainAuto, ContainCgroup:
		return nil
	case ContainPIDNamespace:
		return fmt.Errorf("spawn: Contain %q: a Host's child has no PID namespace (its init would stand between the program and the child); %q or %q contain it in a cgroup", o.Contain, ContainAuto, ContainCgroup)
	}
	return fmt.Errorf("spawn: Contain %q is none of %q, %q, %q", o.Contain, NoContainment, ContainAuto, ContainCgroup)
}
