package mcpconfig

// Action is what Wrap or Unwrap did, or would do, to one entry.
type Action int

const (
	// DidWrap: a stdio entry now runs through tether.
	DidWrap Action = iota
	// DidUnwrap: a wrapped entry is back to its own command.
	DidUnwrap
	// AlreadyWrapped: Wrap left an entry that runs through tether.
	AlreadyWrapped
	// NotWrapped: Unwrap left an entry that does not run through tether.
	NotWrapped
	// Foreign: Unwrap left an entry that runs through tether in a form
	// other than Wrap's (written by hand): its original is not known
	// for certain.
	Foreign
	// LeftRemote: a URL server, left alone.
	LeftRemote
	// LeftOdd: an entry that is not a stdio server's, left alone.
	LeftOdd
)

// Changed reports whether the action changes the file.
func (a Action) Changed() bool { return a == DidWrap || a == DidUnwrap }
