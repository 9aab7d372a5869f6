package mcpconfig

import "fmt"

// Refusal is the error of a file that is left as it is, and with it
// every other file of the same run.
type Refusal struct {
	Reason Reason
	Path   string
	// Target is the file Path leads to; Owner its owner's uid (of a
	// ForeignSymlink's, a NotOwner's).
	Target string
	Owner  int
	// Links is a HardLinks file's number of links.
	Links int
	// Other and Clients are a Shared file's other location and the
	// clients of the two (Other's first).
	Other   string
	Clients []Client
	// Server is the entry an Unexpected edit was of.
	Server string
	Err    error
}

func (r *Refusal) Error() string {
	switch r.Reason {
	case NotParsed:
		return fmt.Sprintf("%s: does not parse: %v", r.Path, r.Err)
	case NotRegular:
		return fmt.Sprintf("%s: not a regular file", r.Path)
	case Unreadable:
		return fmt.Sprintf("%s: could not be read: %v", r.Path, r.Err)
	case Changed:
		return fmt.Sprintf("%s: changed while it was being edited", r.Path)
	case ForeignSymlink:
		return fmt.Sprintf("%s: a symbolic link to %s, owned by uid %d", r.Path, r.Target, r.Owner)
	case NotOwner:
		return fmt.Sprintf("%s: owned by uid %d", r.Path, r.Owner)
	case ReadOnly:
		return fmt.Sprintf("%s: read-only", r.Path)
	case HardLinks:
		return fmt.Sprintf("%s: %d hard links", r.Path, r.Links)
	case Shared:
		return fmt.Sprintf("%s: the same file as %s, laid out differently by its client", r.Path, r.Other)
	}
	return fmt.Sprintf("%s: the edit of server %q did not read back as meant: %v", r.Path, r.Server, r.Err)
}

func (r *Refusal) Unwrap() error { return r.Err }
