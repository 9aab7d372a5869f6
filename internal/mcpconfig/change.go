package mcpconfig

// Change is what happened, or would happen, to one entry: the entry as
// it was, the action, and for an entry that changes the lines of the
// file it touches, before and after (a diff of that entry alone).
type Change struct {
	Entry  Entry
	Action Action
	// Line is the number of the first line of Before in the file
	// (from 1).
	Line   int
	Before []string
	After  []string
}
