package spawn

import (
	"fmt"
	"syscall"
	"time"

	"github.com/tetherproc/tether/marker"
)

// Validate reports the first field of o that no run can be made with:
// the stamp's name or run id, the markers' variables, a negative Grace,
// a Signal that is no signal, or a Contain that is none of the
// [Containment] constants. The zero value is valid. Supervise validates
// what it is given; a caller may validate first.
func (o Options) Validate() error {
	if err := validateStamp(o.Stamp, o.Markers, o.Signal, o.Grace); err != nil {
		return err
	}
	switch o.Contain {
	case NoContainment, ContainAuto, ContainCgroup, ContainPIDNamespace:
		return nil
	}
	return fmt.Errorf("spawn: Contain %q is none of %q, %q, %q, %q", o.Contain, NoContainment, ContainAuto, ContainCgroup, ContainPIDNamespace)
}

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

// Validate reports the first field of o that no command can be
// executed with: the stamp's name or run id, the markers' variables, or
// a Signal that is no signal. The zero value is valid. [Exec] validates
// what it is given; a caller may validate first.
func (o ExecOptions) Validate() error {
	return validateStamp(o.Stamp, o.Markers, o.Signal, 0)
}

// validateStamp is what every options type holds: the stamp, its
// markers, the parent-death signal and the grace.
func validateStamp(s marker.Stamp, m marker.Markers, sig syscall.Signal, grace time.Duration) error {
	if err := s.Validate(); err != nil {
		return fmt.Errorf("spawn: %w", err)
	}
	if err := m.Validate(); err != nil {
		return fmt.Errorf("spawn: %w", err)
	}
	if sig < 0 || sig > 64 {
		return fmt.Errorf("spawn: Signal %d is no signal", int(sig))
	}
	if grace < 0 {
		return fmt.Errorf("spawn: Grace %v is negative", grace)
	}
	return nil
}
