package mcpconfig

// Kind is what a server entry is, for wrapping.
type Kind int

const (
	// Stdio is a server the client starts: a command and its args.
	Stdio Kind = iota
	// Wrapped is a stdio server that already runs through tether.
	Wrapped
	// Remote is a server the client reaches at a URL (streamable HTTP,
	// SSE): there is no process to tie.
	Remote
	// Odd is an entry whose command or args are not what a stdio
	// server's are (not a string, not a list of strings), or whose
	// place in a TOML file is not a table of its own: left alone.
	Odd
)
