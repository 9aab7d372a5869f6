package abandoned

import "github.com/tetherproc/tether/procid"

// LeftOut is a reparented stdio tree that was looked at and not
// selected, and why.
type LeftOut struct {
	Root procid.ID
	Comm string
	Why  Why
}
