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
	// Cgroup has the child born in a cgroup of its own, which no
	// descendant leaves and which is killed whole.
	Cgroup CgroupMode
}

// CgroupMode says whether a Host's child is born in a cgroup of its own.
type CgroupMode int

const (
	// NoCgroup starts the child in the program's cgroup.
	NoCgroup CgroupMode = iota
	// CgroupWhereAllowed makes the child's cgroup where the machine
	// allows it (root, or a delegated subtree, on Linux 5.7 or later),
	// and starts the child in the program's elsewhere.
	CgroupWhereAllowed
	// CgroupRequired makes the child's cgroup or fails the start.
	CgroupRequired
)

// Validate reports the first field of o that no child can be started
// with: the stamp's name or run id, the markers' variables, a negative
// Grace, a Signal that is no signal, or a Cgroup that is none of the
// [CgroupMode] constants. The zero value is valid. [Host.Start]
// validates what it is given; a caller may validate first.
func (o ChildOptions) Validate() error {
	if err := validateStamp(o.Stamp, o.Markers, o.Signal, o.Grace); err != nil {
		return err
	}
	if o.Cgroup < NoCgroup || o.Cgroup > CgroupRequired {
		return fmt.Errorf("spawn: CgroupMode %d is none of NoCgroup, CgroupWhereAllowed, CgroupRequired", o.Cgroup)
	}
	return nil
}

// config is the Options the Host keeps its child's run by.
func (o ChildOptions) config() Options {
	c := Options{Stamp: o.Stamp, Markers: o.Markers, Signal: o.Signal, Grace: o.Grace}
	switch o.Cgroup {
	case CgroupWhereAllowed:
		c.Contain = ContainAuto
	case CgroupRequired:
		c.Contain = ContainCgroup
	}
	return c
}

// childOptions is the ChildOptions of a Host's child's resolved Options.
func (c Options) childOptions() ChildOptions {
	o := ChildOptions{Stamp: c.Stamp, Markers: c.Markers, Signal: c.Signal, Grace: c.Grace}
	switch c.Contain {
	case ContainAuto:
		o.Cgroup = CgroupWhereAllowed
	case ContainCgroup:
		o.Cgroup = CgroupRequired
	}
	return o
}
