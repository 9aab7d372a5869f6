package mcpconfig

// Reason is why a file was refused.
type Reason int

const (
	// NotParsed: the file is not valid in its format, or its servers
	// are not where its client keeps them.
	NotParsed Reason = iota
	// NotRegular: the path leads to something other than a regular
	// file (a directory, a device).
	NotRegular
	// Unreadable: the file could not be read (a loop of symbolic links,
	// no permission): Err says why.
	Unreadable
	// Changed: the file changed between its reading and the writing of
	// its new version (a client rewrote it meanwhile).
	Changed
	// ForeignSymlink: the file is a symbolic link to a file another
	// user owns.
	ForeignSymlink
	// Shared: the file is reached at two locations whose clients lay
	// their servers out differently in it.
	Shared
	// NotOwner: the file is another user's (and the caller not root):
	// the new version would be the caller's.
	NotOwner
	// ReadOnly: the file's owner has no write permission on it.
	ReadOnly
	// HardLinks: the file has other hard links, which replacing it
	// would leave with the old version.
	HardLinks
	// Unexpected: the edited file did not read back as exactly the
	// entries meant. Nothing was written; it is a defect to report.
	Unexpected
)
