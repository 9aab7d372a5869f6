package mcpconfig

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestDistinct: a file reached through two links, and through one path
// written two ways, is one document; wrapping it then changes it once
// and keeps every server wrapped. Two clients that lay the one file out
// differently are refused.
func TestDistinct(t *testing.T) {
	real := copyFixture(t, "windsurf.mcp_config.json")
	dir := t.TempDir()
	cursor, code := filepath.Join(dir, "cursor.json"), filepath.Join(dir, "code.json")
	for _, l := range []string{cursor, code} {
		if err := os.Symlink(real, l); err != nil {
			t.Fatal(err)
		}
	}
	a := open(t, Location{Client: Cursor, Path: cursor})
	b := open(t, Location{Client: Windsurf, Path: real})
	c := open(t, Location{Client: Cursor, Path: filepath.Join(dir, ".", "cursor.json")})
	docs, err := Distinct([]*Document{a, b, c})
	if err != nil || len(docs) != 1 || docs[0] != a {
		t.Fatalf("Distinct: %d documents, %v; want the first alone", len(docs), err)
	}
	p, err := docs[0].Wrap()
	if err != nil {
		t.Fatal(err)
	}
	backups, err := Commit([]Plan{p}, testTime)
	if err != nil || len(backups) != 1 {
		t.Fatalf("commit: %v %v", backups, err)
	}
	if got, _ := os.ReadFile(real); string(got) != string(p.Data) {
		t.Fatal("the file does not hold the wrapped version")
	}

	v := open(t, Location{Client: VSCode, Path: code})
	_, err = Distinct([]*Document{open(t, Location{Client: Cursor, Path: cursor}), v})
	var r *Refusal
	if !errors.As(err, &r) || r.Reason != Shared || r.Path != code || r.Other != cursor || r.Target != real {
		t.Fatalf("Cursor and VS Code on one file: %v; want a Shared refusal", err)
	}
}
