package mcpconfig

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzWrapUnwrap: whatever a file that parses holds, wrap makes a file
// that reads back as meant, and unwrap of that gives the original back
// byte for byte.
func FuzzWrapUnwrap(f *testing.F) {
	for _, fx := range fixtures {
		data, err := os.ReadFile(filepath.Join("testdata", fx.file))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, fx.client == Codex)
	}
	f.Add([]byte(`{"mcpServers": {"a": {"args": [/* c */ "x" ,], "command": "s"}}}`), false)
	f.Add([]byte("[mcp_servers.a]\nargs = [ # c\n 'x', ]\ncommand = '''s'''\n"), true)
	f.Add([]byte("[mcp_servers]\ndotted.command = \"npx\"\n"), true)
	f.Add([]byte("mcp_servers.top.command = \"npx\"\n[mcp_servers.b]\ncommand = \"x\"\n"), true)
	f.Add([]byte("\xef\xbb\xbf{\"mcpServers\": {\"a\": {\"command\": \"s\"}}}"), false)
	f.Fuzz(func(t *testing.T, data []byte, toml bool) {
		d := &Document{data: data, syn: jsonSyntax{client: Unknown}, w: wrapping(), Location: Location{Path: "fuzz"}}
		if toml {
			d.syn = tomlSyntax{}
		}
		var err error
		if d.found, err = servers(d.syn, data); err != nil {
			return
		}
		d.classify()
		// A refusal (Unexpected) would be an edit that did not read back
		// as meant: a defect, however safely caught.
		p, err := d.Wrap()
		if err != nil {
			t.Fatalf("wrap: %v\n%q", err, data)
		}
		w := &Document{data: p.Data, syn: d.syn, w: d.w, Location: d.Location}
		if w.found, err = servers(w.syn, p.Data); err != nil {
			t.Fatalf("the wrapped file does not parse: %v\n%s", err, p.Data)
		}
		w.classify()
		back, err := w.Unwrap()
		if err != nil {
			t.Fatalf("unwrap of the wrapped file: %v\n%s", err, p.Data)
		}
		if !bytes.Equal(back.Data, data) {
			t.Fatalf("wrap then unwrap:\n%q\nwant\n%q", back.Data, data)
		}
	})
}
