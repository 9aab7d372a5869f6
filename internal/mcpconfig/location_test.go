package mcpconfig

import (
	"path/filepath"
	"testing"
)

func TestLocate(t *testing.T) {
	env := Env{Home: "/home/ada", ConfigDir: "/home/ada/.config", Dir: "/home/ada/proj"}
	var got []string
	for _, l := range Locate(env) {
		got = append(got, string(l.Client)+" "+filepath.ToSlash(l.Path))
	}
	want := []string{
		"claude-code /home/ada/.claude.json",
		"claude-code /home/ada/proj/.mcp.json",
		"claude-desktop /home/ada/.config/Claude/claude_desktop_config.json",
		"cursor /home/ada/.cursor/mcp.json",
		"cursor /home/ada/proj/.cursor/mcp.json",
		"vscode /home/ada/.config/Code/User/mcp.json",
		"vscode /home/ada/.config/Code - Insiders/User/mcp.json",
		"vscode /home/ada/.config/VSCodium/User/mcp.json",
		"vscode /home/ada/proj/.vscode/mcp.json",
		"windsurf /home/ada/.codeium/windsurf/mcp_config.json",
		"gemini /home/ada/.gemini/settings.json",
		"gemini /home/ada/proj/.gemini/settings.json",
		"codex /home/ada/.codex/config.toml",
		"codex /home/ada/proj/.codex/config.toml",
	}
	if len(got) != len(want) {
		t.Fatalf("got %q", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("%d: got %q, want %q", i, got[i], want[i])
		}
	}
	if l := Locate(Env{Home: "/h", ClaudeConfigDir: "/c", CodexHome: "/x"}, ClaudeCode, Codex); len(l) != 2 || l[0].Path != filepath.FromSlash("/c/.claude.json") || l[1].Path != filepath.FromSlash("/x/config.toml") {
		t.Errorf("with CLAUDE_CONFIG_DIR and CODEX_HOME: %+v", l)
	}
	// In the home directory, the project's files are the user's: once.
	env.Dir = env.Home
	if n := len(Locate(env, Gemini, Codex)); n != 2 {
		t.Errorf("Gemini and Codex from home: %d files, want 2", n)
	}
	for path, c := range map[string]Client{
		"/p/.mcp.json": ClaudeCode, "/p/.vscode/mcp.json": VSCode, "/p/.cursor/mcp.json": Cursor,
		"/x/.codex/config.toml": Codex, "/x/servers.json": Unknown,
	} {
		if g := Guess(path); g != c {
			t.Errorf("Guess(%q) = %q, want %q", path, g, c)
		}
	}
}
