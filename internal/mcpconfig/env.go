package mcpconfig

// Env is what Locate looks from: the user's directories and the
// project directory whose own files count too.
type Env struct {
	Home string
	// ConfigDir is os.UserConfigDir: ~/.config on Linux,
	// ~/Library/Application Support on macOS, %AppData% on Windows.
	ConfigDir string
	// Dir is the project directory (the working directory); "" for none.
	Dir string
	// CodexHome is $CODEX_HOME, which moves Codex's files; "" for ~/.codex.
	CodexHome string
	// ClaudeConfigDir is $CLAUDE_CONFIG_DIR, where Claude Code then
	// keeps its .claude.json; "" for the home directory.
	ClaudeConfigDir string
}
