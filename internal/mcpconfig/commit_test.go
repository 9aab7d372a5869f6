package mcpconfig

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

var testTime = time.Date(2026, 12, 6, 15, 0, 0, 0, time.UTC)

// TestCommitKeepsModeAndLink: the new file has the old one's mode, a
// backup of the old one sits beside it, and a symbolic link to one's
// own file stays a link, its target written.
func TestCommitKeepsModeAndLink(t *testing.T) {
	real := copyFixture(t, "claude-code.claude.json")
	if err := os.Chmod(real, 0o640); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), ".claude.json")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	d := open(t, Location{Client: ClaudeCode, Path: link})
	p, err := d.Wrap()
	if err != nil {
		t.Fatal(err)
	}
	backups, err := Commit([]Plan{p}, testTime)
	if err != nil {
		t.Fatal(err)
	}
	if want := real + ".tether-backup-20261206T150000Z"; backups[0] != want {
		t.Fatalf("backup %q, want %q", backups[0], want)
	}
	if b, _ := os.ReadFile(backups[0]); string(b) != string(d.Bytes()) {
		t.Fatal("the backup is not the file as read")
	}
	for _, path := range []string{real, backups[0]} {
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o640 {
			t.Fatalf("%s: mode %v, %v; want 0640", path, fi.Mode(), err)
		}
	}
	if li, err := os.Lstat(link); err != nil || li.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link is no longer a link: %v %v", li.Mode(), err)
	}
	if got, _ := os.ReadFile(real); string(got) != string(p.Data) {
		t.Fatal("the link's target does not hold the new version")
	}
	// A second backup in the same second does not overwrite the first.
	p2, _ := open(t, Location{Client: ClaudeCode, Path: link}).Unwrap()
	second, err := Commit([]Plan{p2}, testTime)
	if err != nil || second[0] != backups[0]+"-2" {
		t.Fatalf("second backup %q, %v", second[0], err)
	}
}

// TestCommitRefusesChanged: a file rewritten between its reading and
// the writing (as a running client does) is left as the client wrote
// it, and so is every other file of the run; no backup or temporary
// file is left behind.
func TestCommitRefusesChanged(t *testing.T) {
	dir := t.TempDir()
	var plans []Plan
	for _, name := range []string{"a.json", "b.json"} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(`{"mcpServers": {"s": {"command": "srv"}}}`), 0o600); err != nil {
			t.Fatal(err)
		}
		p, err := open(t, Location{Client: Cursor, Path: path}).Wrap()
		if err != nil {
			t.Fatal(err)
		}
		plans = append(plans, p)
	}
	meanwhile := []byte(`{"mcpServers": {"s": {"command": "srv"}}, "numStartups": 2}`)
	if err := os.WriteFile(filepath.Join(dir, "b.json"), meanwhile, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Commit(plans, testTime)
	var r *Refusal
	if !errors.As(err, &r) || r.Reason != Changed || r.Path != filepath.Join(dir, "b.json") {
		t.Fatalf("got %v, want a refusal: b.json changed", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Fatalf("files left: %v", entries)
	}
	if a, _ := os.ReadFile(filepath.Join(dir, "a.json")); string(a) != string(plans[0].Document.Bytes()) {
		t.Fatalf("a.json written although b.json was refused: %s", a)
	}
}

// TestOpenRefusesForeignSymlink: a link to a file another user owns is
// not followed to be written (as root, the test makes such a file).
func TestOpenRefusesForeignSymlink(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to give a file to another user")
	}
	real := copyFixture(t, "cursor.mcp.json")
	if err := os.Chown(real, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	_, err := Open(Location{Client: Cursor, Path: link}, wrapping())
	var r *Refusal
	if !errors.As(err, &r) || r.Reason != ForeignSymlink || r.Target != real || r.Owner != 65534 {
		t.Fatalf("got %v, want a refusal: a link to uid 65534's file", err)
	}
	// A linked directory leads there as much as a linked file.
	home := t.TempDir()
	if err := os.Symlink(filepath.Dir(real), filepath.Join(home, ".cursor")); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(home, ".cursor", filepath.Base(real))
	_, err = Open(Location{Client: Cursor, Path: path}, wrapping())
	if !errors.As(err, &r) || r.Reason != ForeignSymlink || r.Target != real {
		t.Fatalf("through a linked directory: got %v, want a refusal: a link to uid 65534's file", err)
	}
}

// TestOpenRefusesWhatARenameWouldChange: a read-only file, and one with
// another hard link, are refused when opened: replacing either would
// change more than its bytes.
func TestOpenRefusesWhatARenameWouldChange(t *testing.T) {
	ro := copyFixture(t, "cursor.mcp.json")
	if err := os.Chmod(ro, 0o444); err != nil {
		t.Fatal(err)
	}
	linked := copyFixture(t, "windsurf.mcp_config.json")
	if err := os.Link(linked, filepath.Join(t.TempDir(), "other.json")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path   string
		reason Reason
		links  int
	}{{ro, ReadOnly, 0}, {linked, HardLinks, 2}} {
		_, err := Open(Location{Client: Cursor, Path: c.path}, wrapping())
		var r *Refusal
		if !errors.As(err, &r) || r.Reason != c.reason || r.Path != c.path || r.Links != c.links {
			t.Errorf("%s: %v; want a refusal, reason %d, %d links", c.path, err, c.reason, c.links)
		}
	}
}

// TestCommitStopsAtAFailedRename: when the second of three renames
// fails, the first file stays replaced with its backup, the others are
// as they were with no backup or temporary file of theirs left, and
// the error names the file once, with the system's reason alone.
func TestCommitStopsAtAFailedRename(t *testing.T) {
	dir := t.TempDir()
	var plans []Plan
	text := []byte(`{"mcpServers": {"s": {"command": "srv"}}}`)
	for _, name := range []string{"a.json", "b.json", "c.json"} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, text, 0o640); err != nil {
			t.Fatal(err)
		}
		p, err := open(t, Location{Client: Cursor, Path: path}).Wrap()
		if err != nil {
			t.Fatal(err)
		}
		plans = append(plans, p)
	}
	b := filepath.Join(dir, "b.json")
	rename = func(from, to string) error {
		if to == b {
			return &os.LinkError{Op: "rename", Old: from, New: to, Err: syscall.EPERM}
		}
		return os.Rename(from, to)
	}
	defer func() { rename = os.Rename }()
	backups, err := Commit(plans, testTime)
	var we *WriteError
	if !errors.As(err, &we) || we.Path != b || we.Err != syscall.EPERM {
		t.Fatalf("got %v, want a WriteError of b.json, EPERM", err)
	}
	if strings.Count(err.Error(), b) != 1 {
		t.Errorf("error %q names the file more than once", err)
	}
	a := filepath.Join(dir, "a.json")
	if len(backups) != 3 || backups[0] != a+BackupSuffix(testTime) || backups[1] != "" || backups[2] != "" {
		t.Fatalf("backups %q, want a.json's alone", backups)
	}
	if got, _ := os.ReadFile(a); string(got) != string(plans[0].Data) {
		t.Error("a.json is not the wrapped version")
	}
	if fi, err := os.Stat(backups[0]); err != nil || fi.Mode().Perm() != 0o640 {
		t.Errorf("a.json's backup: %v, %v; want mode 0640", fi, err)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := []string{"a.json", "a.json" + BackupSuffix(testTime), "b.json", "c.json"}; strings.Join(names, " ") != strings.Join(want, " ") {
		t.Errorf("files %q, want %q", names, want)
	}
	for _, name := range []string{"b.json", "c.json"} {
		if got, _ := os.ReadFile(filepath.Join(dir, name)); string(got) != string(text) {
			t.Errorf("%s changed: %s", name, got)
		}
	}
}
