package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tetherproc/tether/internal/proctest"
)

// tether mcp wrap as a user runs it: in a home directory of the test's
// own, on the files the clients write.

// claudeFixture is ~/.claude.json as Claude Code 2.1.197 wrote it
// (claude mcp add), which the package's tests round-trip too.
const claudeFixture = "../internal/mcpconfig/testdata/claude-code.claude.json"

// mcpWrapRun runs tether mcp ARGS with HOME=home in dir.
func mcpWrapRun(t *testing.T, home, dir string, args ...string) result {
	t.Helper()
	cmd := exec.Command(tetherBin, append([]string{"mcp"}, args...)...)
	cmd.Dir = dir
	env := []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "CODEX_HOME=", "CLAUDE_CONFIG_DIR="}
	return tetherCmd(t, cmd, env)
}

// claudeHome is a home directory whose ~/.claude.json is the fixture,
// its server "everything" made the installed server-everything, with
// the test's mark in its env block.
func claudeHome(t *testing.T, fx mcpFixture) (home string, original []byte) {
	t.Helper()
	data, err := os.ReadFile(claudeFixture)
	if err != nil {
		t.Fatal(err)
	}
	k, v, _ := strings.Cut(proctest.Env(t)[0], "=")
	server, _ := json.Marshal(filepath.Join(fx.dir, "node_modules", ".bin", "mcp-server-everything"))
	node, _ := json.Marshal(fx.node)
	envBlock, _ := json.Marshal(map[string]string{k: v})
	old := "\"command\": \"npx\",\n      \"args\": [\n        \"-y\",\n        \"@modelcontextprotocol/server-everything\"\n      ],\n      \"env\": {}"
	repl := "\"command\": " + string(node) + ",\n      \"args\": [\n        " + string(server) + "\n      ],\n      \"env\": " + string(envBlock)
	if !bytes.Contains(data, []byte(old)) {
		t.Fatalf("%s: no entry %q to point at the installed server", claudeFixture, old)
	}
	original = bytes.Replace(data, []byte(old), []byte(repl), 1)
	home = t.TempDir()
	if err := os.WriteFile(filepath.Join(home, ".claude.json"), original, 0o600); err != nil {
		t.Fatal(err)
	}
	return home, original
}

// TestMCPWrap: wrap a Claude Code file; a client started from the
// wrapped entry (the TypeScript SDK's, which the clients are built on)
// gets a working server through tether, and once the client is killed
// nothing of the server's tree is left; unwrap gives the file back byte
// for byte.
func TestMCPWrap(t *testing.T) {
	mcpNotRaced(t)
	fx := mcpInstalled(t)
	mcpRecordRan(t)
	home, original := claudeHome(t, fx)
	path := filepath.Join(home, ".claude.json")

	r := mcpWrapRun(t, home, home, "wrap")
	if r.code != 0 || !strings.Contains(r.stdout, "wrapped 3 servers in 1 file") {
		t.Fatalf("wrap: exit %d, stdout:\n%s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	if r := mcpWrapRun(t, home, home, "wrap"); r.code != 0 || !strings.Contains(r.stdout, "nothing to wrap") {
		t.Fatalf("wrap again: exit %d, stdout:\n%s", r.code, r.stdout)
	}
	config := wrappedEntry(t, path, "everything")
	config.Call = echoTether
	c := startMCPClient(t, fx, mustJSON(t, config), "hang", proctest.Env(t))
	var hello mcpHello
	if line := c.next("answer from the server", 30*time.Second); json.Unmarshal([]byte(line), &hello) != nil || hello.PID <= 0 {
		t.Fatalf("client.mjs said %q, want its report", line)
	}
	if !strings.Contains(string(hello.Result), "tether") {
		t.Fatalf("the echo tool answered %s, want it to echo tether", hello.Result)
	}
	members := mcpTree(t, hello.PID)
	t.Cleanup(func() { mcpEnd(members) })
	if name := mcpName(hello.PID); name != "tether" || len(members) < 2 {
		t.Fatalf("the client started %s with %d processes, want tether and the server below it", name, len(members))
	}
	start := time.Now()
	c.end("kill")
	if ms, left := watchGone(members, start, mcpDeadline); ms < 0 {
		t.Fatalf("the client was killed; %v of the server's tree still running after %v", left, mcpDeadline)
	}
	c.finish("kill", "hang")

	if r := mcpWrapRun(t, home, home, "unwrap"); r.code != 0 || !strings.Contains(r.stdout, "unwrapped 3 servers in 1 file") {
		t.Fatalf("unwrap: exit %d, stdout:\n%s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, original) {
		t.Fatalf("after wrap and unwrap ~/.claude.json differs from the original:\n%s", got)
	}
}

// wrappedEntry reads server's entry of a Claude Code file as a client
// does, and checks that it runs the server through this tether.
func wrappedEntry(t *testing.T, path, server string) mcpConfig {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		MCPServers map[string]mcpConfig `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatalf("%s after wrap: %v", path, err)
	}
	e := file.MCPServers[server]
	bin, _ := filepath.EvalSymlinks(tetherBin)
	if e.Command != bin || !slices.Equal(e.Args[:5], []string{"run", "--hangup", "--name", server, "--"}) {
		t.Fatalf("%s after wrap: %s is %q %q, want %s run --hangup --name %s -- ...", path, server, e.Command, e.Args, bin, server)
	}
	return e
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestMCPWrapRefusals: each refusal is one line on stderr, exit 1, and
// no file changed or added, in any directory the run touched.
func TestMCPWrapRefusals(t *testing.T) {
	t.Run("no client", func(t *testing.T) {
		home := t.TempDir()
		r := mcpWrapRun(t, home, home, "wrap")
		wantRefusal(t, r, "no configuration file of any MCP client found")
	})
	t.Run("does not parse", func(t *testing.T) {
		home := t.TempDir()
		good := []byte("[mcp_servers.a]\ncommand = \"srv\"\n")
		bad := []byte(`{"mcpServers": {"a": {"command": "srv",}`)
		writeFile(t, filepath.Join(home, ".codex", "config.toml"), good)
		writeFile(t, filepath.Join(home, ".cursor", "mcp.json"), bad)
		r := mcpWrapRun(t, home, home, "wrap")
		wantRefusal(t, r, filepath.Join(home, ".cursor", "mcp.json")+" does not parse")
		wantRefusal(t, r, "leave it out with --client or --config")
		wantFiles(t, home, map[string][]byte{".codex/config.toml": good, ".cursor/mcp.json": bad})
	})
	t.Run("symlink to another user's file", func(t *testing.T) {
		if os.Getuid() != 0 {
			t.Skip("needs root to give a file to another user")
		}
		home, other := t.TempDir(), t.TempDir()
		data := []byte(`{"mcpServers": {"a": {"command": "srv"}}}`)
		target := filepath.Join(other, "settings.json")
		writeFile(t, target, data)
		if err := os.Chown(target, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(home, ".gemini"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, filepath.Join(home, ".gemini", "settings.json")); err != nil {
			t.Fatal(err)
		}
		r := mcpWrapRun(t, home, home, "wrap")
		wantRefusal(t, r, "is a symbolic link to "+target+", which uid 65534 owns")
		wantFiles(t, other, map[string][]byte{"settings.json": data})
	})
	t.Run("a link loop and a directory", func(t *testing.T) {
		home := t.TempDir()
		a, b := filepath.Join(home, "a.json"), filepath.Join(home, "b.json")
		if err := os.Symlink(b, a); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(a, b); err != nil {
			t.Fatal(err)
		}
		wantRefusal(t, mcpWrapRun(t, home, home, "wrap", "--config", a), a+" could not be read (too many links)")
		wantRefusal(t, mcpWrapRun(t, home, home, "wrap", "--config", home), home+" is not a regular file")
	})
	t.Run("list, no client", func(t *testing.T) {
		home := t.TempDir()
		r := mcpWrapRun(t, home, home, "list")
		if r.code != 1 || !strings.Contains(r.stderr, "tether mcp list: no configuration file of any MCP client found") || strings.Contains(r.stderr, "nothing changed") {
			t.Fatalf("exit %d, stderr %q; want exit 1, no file found, and no word of changes", r.code, r.stderr)
		}
	})
	t.Run("read-only, hard links", func(t *testing.T) {
		home := t.TempDir()
		data := []byte(`{"mcpServers": {"a": {"command": "srv"}}}`)
		path := filepath.Join(home, ".cursor", "mcp.json")
		writeFile(t, path, data)
		if err := os.Chmod(path, 0o444); err != nil {
			t.Fatal(err)
		}
		wantRefusal(t, mcpWrapRun(t, home, home, "wrap"), path+" is read-only")
		if err := os.Chmod(path, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Link(path, filepath.Join(home, "kept.json")); err != nil {
			t.Fatal(err)
		}
		wantRefusal(t, mcpWrapRun(t, home, home, "wrap"), path+" has 2 hard links: replacing it would break them")
		wantFiles(t, home, map[string][]byte{".cursor/mcp.json": data, "kept.json": data})
	})
	t.Run("another user's file", notOwnerRefused)
	t.Run("bad usage", func(t *testing.T) {
		home := t.TempDir()
		wantUsage(t, mcpWrapRun(t, home, home, "wrap", "--client", "emacs"), `unknown client "emacs"`)
		wantUsage(t, mcpWrapRun(t, home, home, "wrap", "--config", "nowhere.json"), "nowhere.json: no such file")
		wantUsage(t, mcpWrapRun(t, home, home, "wrap", "--tether", "bin/tether"), `"bin/tether" is not an absolute path`)
		wantUsage(t, mcpWrapRun(t, home, home, "rewrap"), `unknown command "rewrap"`)
		wantUsage(t, mcpWrapRun(t, home, home, "wrap", "--bogus"), "tether mcp wrap: unknown flag --bogus")
		wantUsage(t, mcpWrapRun(t, home, home, "list", "--tether", "/x"), "tether mcp list: unknown flag --tether")
	})
}

// TestMCPWrapListGoesOn: list shows a file that does not parse on a
// line of its own, lists the others, and exits 1.
func TestMCPWrapListGoesOn(t *testing.T) {
	home := t.TempDir()
	writeFile(t, filepath.Join(home, ".cursor", "mcp.json"), []byte(`{"mcpServers": {"a": {"command": "srv",}`))
	writeFile(t, filepath.Join(home, ".codex", "config.toml"), []byte("[mcp_servers.b]\ncommand = \"srv\"\n"))
	r := mcpWrapRun(t, home, home, "list")
	bad := "Cursor: " + filepath.Join(home, ".cursor", "mcp.json") + "\n  does not parse ("
	if r.code != 1 || !strings.Contains(r.stdout, "  b  stdio: srv\n") || !strings.Contains(r.stdout, bad) || r.stderr != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q; want exit 1, b listed and the Cursor file shown as unread", r.code, r.stdout, r.stderr)
	}
}

// TestMCPWrapProjectFiles: the working directory's project files are
// named and left by wrap, marked by list, and wrapped with --project.
func TestMCPWrapProjectFiles(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	user := []byte("[mcp_servers.a]\ncommand = \"srv\"\n")
	project := []byte(`{"mcpServers": {"p": {"command": "srv"}}}`)
	writeFile(t, filepath.Join(home, ".codex", "config.toml"), user)
	path := filepath.Join(dir, ".mcp.json")
	writeFile(t, path, project)
	r := mcpWrapRun(t, home, dir, "wrap")
	if r.code != 0 || !strings.Contains(r.stdout, "Claude Code: "+path+" (project file: --project to wrap it)\n") || !strings.Contains(r.stdout, "wrapped 1 server in 1 file") {
		t.Fatalf("wrap: exit %d, stdout:\n%s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	wantFiles(t, dir, map[string][]byte{".mcp.json": project})
	if r := mcpWrapRun(t, home, dir, "list"); r.code != 0 || !strings.Contains(r.stdout, "Claude Code: "+path+" (project file)\n  p  stdio: srv") {
		t.Fatalf("list: exit %d, stdout:\n%s", r.code, r.stdout)
	}
	if r := mcpWrapRun(t, home, dir, "wrap", "--project"); r.code != 0 || !strings.Contains(r.stdout, "wrapped 1 server in 1 file") {
		t.Fatalf("wrap --project: exit %d, stdout:\n%s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	wrappedEntry(t, path, "p")
}

// TestMCPWrapOneFileTwoLinks: Cursor's file and a second --config
// name both lead to Windsurf's: it is wrapped once, its server kept
// wrapped, with one backup.
func TestMCPWrapOneFileTwoLinks(t *testing.T) {
	home := t.TempDir()
	real := filepath.Join(home, ".codeium", "windsurf", "mcp_config.json")
	writeFile(t, real, []byte(`{"mcpServers": {"a": {"command": "srv"}}}`))
	if err := os.MkdirAll(filepath.Join(home, ".cursor"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, filepath.Join(home, ".cursor", "mcp.json")); err != nil {
		t.Fatal(err)
	}
	r := mcpWrapRun(t, home, home, "wrap")
	if r.code != 0 || !strings.Contains(r.stdout, "wrapped 1 server in 1 file") || strings.Count(r.stdout, "backup: ") != 1 {
		t.Fatalf("wrap: exit %d, stdout:\n%s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	wrappedEntry(t, real, "a")
	r = mcpWrapRun(t, home, home, "unwrap", "--config", real, "--config", "./.codeium/windsurf/mcp_config.json")
	if r.code != 0 || !strings.Contains(r.stdout, "unwrapped 1 server in 1 file") {
		t.Fatalf("unwrap: exit %d, stdout:\n%s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
}

// notOwnerRefused: a file of uid 65533 in a directory anyone can write
// is refused to uid 65534, whom the directory would let replace it.
func notOwnerRefused(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to run tether as another user")
	}
	dir, err := os.MkdirTemp("", "tether-mcp-owner-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "tether")
	exe, err := os.ReadFile(tetherBin)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, bin, exe)
	if err := os.Chmod(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	data := []byte(`{"mcpServers": {"a": {"command": "srv"}}}`)
	path := filepath.Join(dir, "mcp.json")
	writeFile(t, path, data)
	if err := os.Chown(path, 65533, 65533); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "mcp", "wrap", "--config", path)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	wantRefusal(t, tetherCmd(t, cmd, []string{"HOME=" + dir}), path+" is owned by uid 65533")
	wantFiles(t, dir, map[string][]byte{"mcp.json": data, "tether": exe})
}

func wantRefusal(t *testing.T, r result, says string) {
	t.Helper()
	if r.code != 1 || r.stdout != "" || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, says) || !strings.Contains(r.stderr, "nothing changed") {
		t.Fatalf("exit %d, stdout %q, stderr %q; want exit 1 and one line on stderr that says %q and nothing changed", r.code, r.stdout, r.stderr, says)
	}
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// wantFiles checks that dir holds exactly files (relative paths), each
// with its bytes: nothing changed, no backup or temporary file added.
func wantFiles(t *testing.T, dir string, files map[string][]byte) {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		n++
		rel, _ := filepath.Rel(dir, path)
		want, ok := files[filepath.ToSlash(rel)]
		got, _ := os.ReadFile(path)
		if !ok || !bytes.Equal(got, want) {
			t.Errorf("%s: %q; want it unchanged (and no file added)", rel, got)
		}
		return nil
	})
	if err != nil || n != len(files) {
		t.Errorf("%d files in %s, want %d (%v)", n, dir, len(files), err)
	}
}
