package mcpconfig

// Entry is one server of a configuration file, as the client reads it.
type Entry struct {
	// Server is the entry's key: the server's name in the client.
	Server string
	// Project is the project directory the entry belongs to, in a file
	// that holds several projects' servers (Claude Code's
	// projects[PATH].mcpServers); "" for the file's own servers.
	Project string
	Kind    Kind
	Command string
	Args    []string
	// URL and Transport are a remote server's address and its "type"
	// ("http", "sse", "streamable-http"), when given.
	URL       string
	Transport string
}
