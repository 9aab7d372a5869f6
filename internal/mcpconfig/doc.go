// Package mcpconfig finds the MCP client configurations of a user and
// rewrites their stdio server entries so that each runs through tether,
// and back.
//
// It is a package of its own because the work is a file editor's, not a
// process supervisor's: each client keeps its servers in a file of its
// own layout (JSON, JSON with comments, TOML), a file the user and the
// client edit too, that clients rewrite while they run, and whose every
// other byte must come through untouched. So nothing here re-encodes a
// file. A file is parsed (github.com/tailscale/hujson for JSON and JSONC,
// github.com/pelletier/go-toml/v2 for TOML) to learn where each entry's
// command and args sit, only those bytes are changed, and the result is
// parsed again and must say exactly what was meant before it is written.
// Wrap writes its additions in a form Unwrap can take away to the byte,
// so that wrap then unwrap gives the file back as it was.
//
// Writing is all or nothing per run: every file is read, parsed and
// edited first; then each new version goes to a temporary file beside
// its original, is synced, and every original is checked unchanged
// before the first rename. A crash leaves each file either old or new.
//
// The package speaks values: clients, locations, entries, changes and
// refusals. The command line words them.
package mcpconfig
