package mcpconfig

import (
	"fmt"
	"sort"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// tomlSyntax is Codex's config.toml: servers in [mcp_servers.NAME]
// tables. The decoder (go-toml v2, whose package costs tether's start
// nothing: BurntSushi's toml reads the local time zone at init) says
// what the file means; tomlScan where each value sits, so that only an
// entry's own command and args bytes are changed. Re-encoding the file
// through a TOML library would lose its comments, order and layout.
type tomlSyntax struct{}

func (tomlSyntax) servers(data []byte) ([]found, error) {
	var doc map[string]any
	if err := toml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	raw, ok := doc["mcp_servers"]
	if !ok {
		return nil, nil
	}
	servers, ok := raw.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("mcp_servers is not a table")
	}
	names := make([]string, 0, len(servers))
	for name := range servers {
		names = append(names, name)
	}
	// Tables come in the file's order, for the listing; those without a
	// command or url line, by name.
	keys, scanErr := scanTOML(data)
	sort.Strings(names)
	sort.SliceStable(names, func(i, j int) bool {
		return tomlLine(keys, names[i]) < tomlLine(keys, names[j])
	})
	out := make([]found, 0, len(names))
	for _, name := range names {
		f := found{entry: Entry{Server: name, Kind: Odd}}
		if t, ok := servers[name].(map[string]any); ok {
			tomlEntry(&f, t)
		}
		if f.entry.Kind == Stdio && (scanErr != nil || !tomlPlace(&f, keys)) {
			// Not laid out as a table of its own with a command line:
			// left alone rather than edited by guess.
			f.entry.Kind = Odd
		}
		out = append(out, f)
	}
	return out, nil
}

// tomlLine is where a server's command is, to order servers by; servers
// with none go last.
func tomlLine(keys map[string]tomlKey, name string) int {
	if k, ok := keys[tomlPath(name, "command")]; ok {
		return k.line
	}
	if k, ok := keys[tomlPath(name, "url")]; ok {
		return k.line
	}
	return 1 << 62
}

func tomlPath(server, key string) string {
	return "mcp_servers\x00" + server + "\x00" + key
}

func tomlEntry(f *found, t map[string]any) {
	if u, ok := t["url"].(string); ok {
		f.entry.URL, f.entry.Kind = u, Remote
		return
	}
	cmd, ok := t["command"].(string)
	if !ok {
		return
	}
	f.entry.Command = cmd
	if raw, ok := t["args"]; ok {
		list, ok := raw.([]any)
		if !ok {
			return
		}
		for _, a := range list {
			s, ok := a.(string)
			if !ok {
				return
			}
			f.entry.Args = append(f.entry.Args, s)
		}
	}
	f.entry.Kind = Stdio
}

// tomlPlace finds where the entry's command and args sit: keys of the
// table [mcp_servers.NAME] itself. A command given as a dotted key
// ([mcp_servers] then NAME.command) is not placed: args added before
// its line would be the outer table's (mcp_servers.args).
func tomlPlace(f *found, keys map[string]tomlKey) bool {
	own := "mcp_servers\x00" + f.entry.Server
	c, ok := keys[tomlPath(f.entry.Server, "command")]
	if !ok || c.table != own {
		return false
	}
	f.command, f.commandKey, f.keyLead, f.eol = c.value, c.line, c.indent, c.eol
	if a, ok := keys[tomlPath(f.entry.Server, "args")]; ok {
		if a.table != own || a.arr == nil || len(a.arr.elems) != len(f.entry.Args) {
			return false
		}
		f.args, f.argsKey, f.argsAdjacent = a.arr, a.line, a.end == c.line
	} else if f.entry.Args != nil {
		return false
	}
	return true
}

// quote is a TOML basic string.
func (tomlSyntax) quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// newArgs is a line of its own before the command's, indented as it is.
func (tomlSyntax) newArgs(f found, list string) (int, string) {
	return f.commandKey, f.keyLead + "args = [" + list + "]" + f.eol
}

func (tomlSyntax) layout() string { return "toml" }
