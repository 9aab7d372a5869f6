package mcpconfig

import (
	"path/filepath"
	"strings"
)

// Location is a file a client may keep its servers in.
type Location struct {
	Client Client
	Path   string
	// Project is set for a project's own file (a .mcp.json, a
	// .vscode/mcp.json), as opposed to the user's.
	Project bool
}

// Locate lists every file the clients given (all when none) may keep
// servers in, for env, whether or not it exists; each path once.
func Locate(env Env, clients ...Client) []Location {
	if len(clients) == 0 {
		clients = Clients()
	}
	var out []Location
	seen := map[string]bool{}
	add := func(c Client, project bool, elem ...string) {
		if elem[0] == "" {
			return
		}
		p := filepath.Join(elem...)
		if !seen[p] {
			seen[p] = true
			out = append(out, Location{Client: c, Path: p, Project: project})
		}
	}
	for _, c := range clients {
		for _, f := range files(c, env) {
			add(c, f.project, f.elem...)
		}
	}
	return out
}

type file struct {
	project bool
	elem    []string
}

// files are a client's files, the user's first. Claude Desktop's
// directory is the platform's config directory's Claude (macOS:
// ~/Library/Application Support/Claude, Windows: %AppData%\Claude, and
// Linux builds ~/.config/Claude); VS Code's user file is in its User
// directory there (Code, Code - Insiders, VSCodium).
func files(c Client, env Env) []file {
	user := func(elem ...string) file { return file{elem: elem} }
	proj := func(elem ...string) file { return file{project: true, elem: elem} }
	switch c {
	case ClaudeCode:
		dir := env.ClaudeConfigDir
		if dir == "" {
			dir = env.Home
		}
		return []file{user(dir, ".claude.json"), proj(env.Dir, ".mcp.json")}
	case ClaudeDesktop:
		return []file{user(env.ConfigDir, "Claude", "claude_desktop_config.json")}
	case Cursor:
		return []file{user(env.Home, ".cursor", "mcp.json"), proj(env.Dir, ".cursor", "mcp.json")}
	case VSCode:
		// Insiders and VSCodium keep the same file in their own User
		// directories.
		return []file{user(env.ConfigDir, "Code", "User", "mcp.json"), user(env.ConfigDir, "Code - Insiders", "User", "mcp.json"),
			user(env.ConfigDir, "VSCodium", "User", "mcp.json"), proj(env.Dir, ".vscode", "mcp.json")}
	case Windsurf:
		return []file{user(env.Home, ".codeium", "windsurf", "mcp_config.json")}
	case Gemini:
		return []file{user(env.Home, ".gemini", "settings.json"), proj(env.Dir, ".gemini", "settings.json")}
	case Codex:
		home := env.CodexHome
		if home == "" && env.Home != "" {
			home = filepath.Join(env.Home, ".codex")
		}
		return []file{user(home, "config.toml"), proj(env.Dir, ".codex", "config.toml")}
	}
	return nil
}

// Guess is the client of a file given by path, from its name: a file a
// client alone names so, or Unknown.
func Guess(path string) Client {
	base := filepath.Base(path)
	dir := filepath.Base(filepath.Dir(path))
	switch {
	case base == ".claude.json" || base == ".mcp.json":
		return ClaudeCode
	case base == "claude_desktop_config.json":
		return ClaudeDesktop
	case base == "mcp_config.json" && dir == "windsurf":
		return Windsurf
	case base == "mcp.json" && dir == ".cursor":
		return Cursor
	case base == "mcp.json" && (dir == ".vscode" || dir == "User"):
		return VSCode
	case base == "settings.json" && dir == ".gemini":
		return Gemini
	case strings.HasSuffix(base, ".toml"):
		return Codex
	}
	return Unknown
}
