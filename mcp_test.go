package main

import (
	"os"
	"path/filepath"
	"testing"
)

func TestMCPName(t *testing.T) {
	for server, want := range map[string]string{
		"everything":             "everything",
		"naïve server":           "na__ve_server",
		"github.com/x":           "github.com_x",
		"":                       "mcp",
		string(make([]byte, 70)): "________________________________________________________________",
	} {
		if got := mcpName(server); got != want {
			t.Errorf("mcpName(%q) = %q, want %q", server, got, want)
		}
	}
}

// TestTetherPath: the tether on PATH is written as it is found there
// (a package manager's link) when it is this binary; otherwise this
// binary's own path.
func TestTetherPath(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	exe, _ = filepath.EvalSymlinks(exe)
	dir := t.TempDir()
	link := filepath.Join(dir, "tether")
	if err := os.Symlink(exe, link); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
	if got, err := tetherPath(); err != nil || got != link {
		t.Errorf("with this binary linked on PATH: %q, %v; want %q", got, err, link)
	}
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "tether"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", other)
	if got, err := tetherPath(); err != nil || got != exe {
		t.Errorf("with another tether on PATH: %q, %v; want this binary, %q", got, err, exe)
	}
}
