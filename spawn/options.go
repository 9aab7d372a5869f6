package spawn

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"github.com/tetherproc/tether/probe"
)

// ErrUnsupported is returned where the platform has no parent-death signal.
var ErrUnsupported = errors.New("tethering a child needs a parent-death signal, which only Linux has")

// Options describe how a child is tethered.
type Options struct {
	// Name is stamped as the name variable; default: probe.NameFor the
	// command.
	Name string
	// Markers names the marker and name variables; default TETHER and
	// TETHER_NAME.
	Markers probe.Markers
	// Signal is the parent-death signal; default SIGTERM.
	Signal syscall.Signal
	// RunID is stamped as TETHER_RUN_ID; default a new random one.
	RunID string
	// Supervisor is stamped as TETHER_SUPERVISOR; default the calling
	// process.
	Supervisor probe.Supervisor
}

// resolve fills in the defaults for a child running command and
// validates the result.
func (o Options) resolve(command string) (Options, error) {
	if o.Name == "" {
		o.Name = probe.NameFor(command)
	}
	if err := probe.ValidateName(o.Name); err != nil {
		return o, err
	}
	if err := o.Markers.Validate(); err != nil {
		return o, err
	}
	if o.Signal == 0 {
		o.Signal = syscall.SIGTERM
	}
	if o.RunID == "" {
		o.RunID = probe.NewRunID()
	} else if err := probe.ValidateRunID(o.RunID); err != nil {
		return o, err
	}
	if o.Supervisor.PID == 0 {
		s, err := probe.SupervisorOf(os.Getpid())
		if err != nil {
			return o, fmt.Errorf("read own start time: %w", err)
		}
		o.Supervisor = s
	}
	return o, nil
}

// environ stamps env (the calling process's environment when nil).
func (o Options) environ(env []string) []string {
	if env == nil {
		env = os.Environ()
	}
	return o.Markers.Environ(env, probe.Stamp{Name: o.Name, Supervisor: o.Supervisor, RunID: o.RunID})
}
