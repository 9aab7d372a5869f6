package mcpconfig

// Client is an MCP client whose configuration files the package knows.
// Its value is the name a user gives it by.
type Client string

// The clients whose files Locate finds.
const (
	ClaudeCode    Client = "claude-code"
	ClaudeDesktop Client = "claude-desktop"
	Cursor        Client = "cursor"
	VSCode        Client = "vscode"
	Windsurf      Client = "windsurf"
	Gemini        Client = "gemini"
	Codex         Client = "codex"
	// Unknown is the client of a file given by path whose client was
	// not said: its layout is guessed from its contents.
	Unknown Client = ""
)

// Clients lists every client Locate knows, in the order it lists their
// files.
func Clients() []Client {
	return []Client{ClaudeCode, ClaudeDesktop, Cursor, VSCode, Windsurf, Gemini, Codex}
}

// toml reports whether the client keeps its servers in TOML.
func (c Client) toml() bool { return c == Codex }
