package mcpconfig

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// tetherPath is the command the tests wrap with.
const tetherPath = "/usr/local/bin/tether"

func wrapping() Wrapping {
	return Wrapping{
		Command: tetherPath,
		Program: "tether",
		Prefix: func(server string) []string {
			return []string{"run", "--hangup", "--name", server, "--"}
		},
	}
}

// fixtures are each client's file: as the client itself wrote it where
// it installs from npm (claude mcp add, codex mcp add, gemini mcp add),
// from its documentation otherwise, and edited by hand (comments,
// unusual layout, unicode, env blocks, URL servers). wrapped is how
// many entries Wrap wraps.
var fixtures = []struct {
	file    string
	client  Client
	wrapped int
}{
	{"claude-code.claude.json", ClaudeCode, 3},
	{"claude-code.mcp.json", ClaudeCode, 1},
	{"claude-desktop.json", ClaudeDesktop, 2},
	{"cursor.mcp.json", Cursor, 2},
	{"vscode.mcp.json", VSCode, 2},
	{"windsurf.mcp_config.json", Windsurf, 2},
	{"gemini.settings.json", Gemini, 3},
	{"gemini.project.settings.json", Gemini, 1},
	{"gemini.edited.settings.json", Gemini, 2},
	{"codex.config.toml", Codex, 3},
	{"codex.edited.config.toml", Codex, 4},
}

// copyFixture puts a fixture in a directory of the test's own.
func copyFixture(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func open(t *testing.T, loc Location) *Document {
	t.Helper()
	d, err := Open(loc, wrapping())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// commit writes p and fails the test on an error.
func commit(t *testing.T, p Plan) {
	t.Helper()
	if _, err := Commit([]Plan{p}, testTime); err != nil {
		t.Fatal(err)
	}
}

func count(p Plan, a Action) int {
	n := 0
	for _, c := range p.Changes {
		if c.Action == a {
			n++
		}
	}
	return n
}

// TestRoundTrip wraps each fixture, wraps it again (nothing changes),
// checks what the client would now start, unwraps, and compares with the
// original byte for byte; unwrapping the original changes nothing.
func TestRoundTrip(t *testing.T) {
	for _, fx := range fixtures {
		t.Run(fx.file, func(t *testing.T) {
			path := copyFixture(t, fx.file)
			loc := Location{Client: fx.client, Path: path}
			orig := open(t, loc)
			if p, err := orig.Unwrap(); err != nil || p.Changed() {
				t.Fatalf("unwrap of a file never wrapped: changed %v, err %v", p.Changed(), err)
			}
			p, err := orig.Wrap()
			if err != nil {
				t.Fatal(err)
			}
			if n := count(p, DidWrap); n != fx.wrapped {
				t.Fatalf("wrapped %d entries, want %d", n, fx.wrapped)
			}
			golden(t, fx.file, p.Data)
			commit(t, p)
			checkWrapped(t, orig, open(t, loc))
			again, err := open(t, loc).Wrap()
			if err != nil || again.Changed() || count(again, AlreadyWrapped) != fx.wrapped {
				t.Fatalf("second wrap: changed %v, %d already wrapped, err %v", again.Changed(), count(again, AlreadyWrapped), err)
			}
			back, err := open(t, loc).Unwrap()
			if err != nil || count(back, DidUnwrap) != fx.wrapped {
				t.Fatalf("unwrap: %d unwrapped, err %v", count(back, DidUnwrap), err)
			}
			commit(t, back)
			got, _ := os.ReadFile(path)
			if !bytes.Equal(got, orig.Bytes()) {
				t.Fatalf("after wrap and unwrap the file differs from the original:\n%s", got)
			}
		})
	}
}

// checkWrapped checks each entry of the wrapped file against the
// original's: a stdio server runs the original through tether, every
// other entry is as it was.
func checkWrapped(t *testing.T, orig, wrapped *Document) {
	t.Helper()
	before, after := orig.Entries(), wrapped.Entries()
	if len(before) != len(after) {
		t.Fatalf("%d entries after wrap, %d before", len(after), len(before))
	}
	for i, b := range before {
		a := after[i]
		if b.Kind != Stdio {
			if !sameEntry(a, b) {
				t.Errorf("%s: %v entry changed: %+v to %+v", b.Server, b.Kind, b, a)
			}
			continue
		}
		want := append([]string{"run", "--hangup", "--name", b.Server, "--", b.Command}, b.Args...)
		if a.Kind != Wrapped || a.Command != tetherPath || !slices.Equal(a.Args, want) {
			t.Errorf("%s: wrapped as %v %q %q, want %q %q", b.Server, a.Kind, a.Command, a.Args, tetherPath, want)
		}
	}
}

// golden compares the wrapped file with testdata/wrapped/NAME, which
// TETHER_UPDATE_GOLDEN=1 writes: the file after wrap, for a reader.
func golden(t *testing.T, name string, data []byte) {
	t.Helper()
	path := filepath.Join("testdata", "wrapped", name)
	if os.Getenv("TETHER_UPDATE_GOLDEN") == "1" {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (TETHER_UPDATE_GOLDEN=1 writes it)", err)
	}
	if !bytes.Equal(data, want) {
		t.Errorf("wrapped %s differs from %s (TETHER_UPDATE_GOLDEN=1 rewrites it):\n%s", name, path, data)
	}
}

func TestNotParsed(t *testing.T) {
	for name, text := range map[string]string{
		"mcp.json":    `{"mcpServers": {"a": {"command": "x",}`,
		"config.toml": "[mcp_servers.a]\ncommand = \"x\nargs = []\n",
		"other.json":  `{"mcpServers": ["x"]}`,
	} {
		path := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Open(Location{Path: path, Client: Guess(path)}, wrapping())
		var r *Refusal
		if !errors.As(err, &r) || r.Reason != NotParsed || r.Path != path {
			t.Errorf("%s: got %v, want a refusal: does not parse", name, err)
		}
	}
}

// TestUnwrapLeavesHandWritten: an entry that runs through tether in a
// form Wrap does not write is left, and named so.
func TestUnwrapLeavesHandWritten(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mcp.json")
	text := `{"mcpServers": {"a": {"command": "/opt/bin/tether", "args": ["run", "--", "srv"]}}}`
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	d := open(t, Location{Client: Cursor, Path: path})
	p, err := d.Unwrap()
	if err != nil || p.Changed() || p.Changes[0].Action != Foreign {
		t.Fatalf("unwrap of a hand-written entry: %+v, %v", p.Changes, err)
	}
	w, err := d.Wrap()
	if err != nil || w.Changed() || w.Changes[0].Action != AlreadyWrapped {
		t.Fatalf("wrap of a hand-written entry: %+v, %v", w.Changes, err)
	}
}

// TestDiff: the change of one entry is the lines it touches.
func TestDiff(t *testing.T) {
	path := copyFixture(t, "codex.config.toml")
	p, err := open(t, Location{Client: Codex, Path: path}).Wrap()
	if err != nil {
		t.Fatal(err)
	}
	c := p.Changes[2] // noargs: args are added before the command
	if c.Entry.Server != "noargs" || c.Line != 13 {
		t.Fatalf("change %+v", c)
	}
	want := []string{`args = [ "run", "--hangup", "--name", "noargs", "--", "/usr/bin/myserver" ]`, `command = "/usr/local/bin/tether"`}
	if strings.Join(c.Before, "\n") != `command = "/usr/bin/myserver"` || !slices.Equal(c.After, want) {
		t.Fatalf("diff of noargs: -%q +%q", c.Before, c.After)
	}
}

// TestUnwrapAfterClientRewrite: a client that rewrites its file after
// wrap (its own layout, a key of its own) still gets each entry's own
// command and args back from unwrap.
func TestUnwrapAfterClientRewrite(t *testing.T) {
	path := copyFixture(t, "claude-code.claude.json")
	loc := Location{Client: ClaudeCode, Path: path}
	orig := open(t, loc)
	p, err := orig.Wrap()
	if err != nil {
		t.Fatal(err)
	}
	// As a JavaScript client writes: parsed, a key set, re-encoded with
	// a layout of its own.
	var doc map[string]any
	if err := json.Unmarshal(p.Data, &doc); err != nil {
		t.Fatal(err)
	}
	doc["numStartups"] = 7
	rewritten, err := json.MarshalIndent(doc, "", "\t")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, rewritten, 0o600); err != nil {
		t.Fatal(err)
	}
	back, err := open(t, loc).Unwrap()
	if err != nil || count(back, DidUnwrap) != 3 {
		t.Fatalf("unwrap after a rewrite: %d unwrapped, %v", count(back, DidUnwrap), err)
	}
	commit(t, back)
	got := open(t, loc).Entries()
	want := orig.Entries()
	slices.SortFunc(got, func(a, b Entry) int { return strings.Compare(a.Project+a.Server, b.Project+b.Server) })
	slices.SortFunc(want, func(a, b Entry) int { return strings.Compare(a.Project+a.Server, b.Project+b.Server) })
	for i := range want {
		if !sameEntry(got[i], want[i]) {
			t.Errorf("after unwrap: %+v, want %+v", got[i], want[i])
		}
	}
}

// TestTOMLDottedLeft: a server whose command is a dotted key (under
// [mcp_servers], or at the top of the file) is left as it is: args
// added before its line would belong to the outer table. A server in a
// table of its own beside it is wrapped.
func TestTOMLDottedLeft(t *testing.T) {
	for _, text := range []string{
		"[mcp_servers]\ndotted.command = \"npx\"\n[mcp_servers.b]\ncommand = \"x\"\n",
		"mcp_servers.dotted.command = \"npx\"\nmcp_servers.dotted.args = [\"y\"]\n[mcp_servers.b]\ncommand = \"x\"\n",
	} {
		path := filepath.Join(t.TempDir(), "config.toml")
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		p, err := open(t, Location{Client: Codex, Path: path}).Wrap()
		if err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		got := map[string]Action{}
		for _, c := range p.Changes {
			got[c.Entry.Server] = c.Action
		}
		if got["dotted"] != LeftOdd || got["b"] != DidWrap {
			t.Errorf("%q: %v; want dotted left, b wrapped", text, got)
		}
	}
}

// TestWrappedByRenamedTether: an entry in Wrap's exact form, run by a
// tether whose file is named otherwise (a release's tether_linux_amd64,
// a tether-portable), is recognised, so wrap leaves it and unwrap gives
// it back; one of another shape, or run by a program not named so, is
// not taken for a wrapped one, unless its command is the wrapping's own.
func TestWrappedByRenamedTether(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mcp.json")
	text := `{"mcpServers": {
  "a": {"command": "/opt/tether_linux_amd64", "args": ["run", "--hangup", "--name", "a", "--", "npx", "x"]},
  "b": {"command": "C:\\tools\\Tether-Portable.exe", "args": ["run", "--hangup", "--name", "b", "--", "srv"]},
  "c": {"command": "/opt/tether-portable", "args": ["run", "--hangup", "--name", "other", "--", "srv"]},
  "d": {"command": "/opt/mytool", "args": ["run", "--hangup", "--name", "d", "--", "srv"]}
}}`
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	kinds := func(w Wrapping) string {
		d, err := Open(Location{Client: Cursor, Path: path}, w)
		if err != nil {
			t.Fatal(err)
		}
		var s []string
		for _, e := range d.Entries() {
			s = append(s, fmt.Sprint(e.Kind == Wrapped))
		}
		return strings.Join(s, " ")
	}
	if got := kinds(wrapping()); got != "true true false false" {
		t.Errorf("wrapped: %s; want a and b alone", got)
	}
	w := wrapping()
	w.Command = "/opt/mytool"
	if got := kinds(w); got != "true true false true" {
		t.Errorf("with the wrapping's command /opt/mytool, wrapped: %s; want d too", got)
	}
	p, err := open(t, Location{Client: Cursor, Path: path}).Unwrap()
	if err != nil {
		t.Fatal(err)
	}
	if p.Changes[0].Action != DidUnwrap || p.Changes[1].Action != DidUnwrap || !strings.Contains(string(p.Data), `"a": {"command": "npx", "args": ["x"]}`) {
		t.Errorf("unwrap: %v\n%s", p.Changes, p.Data)
	}
}

// TestByteOrderMark: a file that begins with a UTF-8 byte-order mark
// (as some Windows editors write it) is read, wrapped with the mark
// kept, and unwrapped to the original bytes.
func TestByteOrderMark(t *testing.T) {
	for name, text := range map[string]string{
		"mcp.json":    "\xef\xbb\xbf{\"mcpServers\": {\"a\": {\"command\": \"npx\"}}}\n",
		"config.toml": "\xef\xbb\xbf[mcp_servers.a]\ncommand = \"npx\"\n",
	} {
		path := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		loc := Location{Client: Guess(path), Path: path}
		if loc.Client == Unknown {
			loc.Client = Cursor
		}
		p, err := open(t, loc).Wrap()
		if err != nil || p.Changes[0].Action != DidWrap || !strings.HasPrefix(string(p.Data), "\xef\xbb\xbf") {
			t.Fatalf("%s: wrap: %v %v\n%q", name, err, p.Changes, p.Data)
		}
		commit(t, p)
		back, err := open(t, loc).Unwrap()
		if err != nil || string(back.Data) != text {
			t.Fatalf("%s: unwrap: %v\n%q\nwant\n%q", name, err, back.Data, text)
		}
	}
}
