package marker

import "github.com/tetherproc/tether/procid"

// Stamp is what a supervisor writes into its child's environment with
// [Markers.Environ].
type Stamp struct {
	Name       string    // see [ValidateName]
	Supervisor procid.ID // the process whose death strands the child, as SupervisorVar names it
	RunID      string    // see [ValidateRunID]
	// PIDNamespace is the supervisor's PID namespace; 0 leaves
	// PIDNamespaceVar out.
	PIDNamespace uint64
}

// Validate checks the values of s that are set, naming a bad one: Name
// by [ValidateName] and RunID by [ValidateRunID]. An empty one is left
// for whoever fills it in (a supervisor derives a name with [NameFor]
// and draws a run id with [NewRunID]).
func (s Stamp) Validate() error {
	if s.Name != "" {
		if err := ValidateName(s.Name); err != nil {
			return err
		}
	}
	if s.RunID != "" {
		return ValidateRunID(s.RunID)
	}
	return nil
}
