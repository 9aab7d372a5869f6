package probe

import "github.com/tetherproc/tether/marker"

// Query says what [Check] looks for: whose markers, and which name.
type Query struct {
	// Markers names the marker and name variables; the zero value is
	// TETHER and TETHER_NAME.
	Markers marker.Markers
	// Name, when set, must be the exact value of the name variable.
	Name string
}

// Validate reports a bad query, naming the bad value: variable names a
// shell could not export, or a name outside the protocol's alphabet.
func (o Query) Validate() error {
	if err := o.Markers.Validate(); err != nil {
		return err
	}
	if o.Name != "" {
		return marker.ValidateName(o.Name)
	}
	return nil
}
