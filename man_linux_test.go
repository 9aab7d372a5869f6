//go:build !urfave_cli_no_docs

package main

import (
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// manPage is the manual page of the command line as it is defined: the
// generator (urfave/cli's, through go-md2man) is built into the tests
// only, never into the shipped binary, which is built without it.
func manPage(t *testing.T) string {
	t.Helper()
	app := newApp(io.Discard, io.Discard)
	app.Version = "" // the page is the same whatever commit built it
	// urfave/cli adds --version only as it runs the app; the page names it.
	app.Flags = append(app.Flags, cli.VersionFlag)
	page, err := app.ToManWithSection(1)
	if err != nil {
		t.Fatal(err)
	}
	return page
}

// docs/man/tether.1 is what the command definitions make: a flag added
// without regenerating fails here. Regenerate with
// TETHER_UPDATE_MAN=1 go test -run TestManPage .
func TestManPage(t *testing.T) {
	const path = "docs/man/tether.1"
	want := manPage(t)
	if os.Getenv("TETHER_UPDATE_MAN") != "" {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v; generate it with TETHER_UPDATE_MAN=1 go test -run TestManPage .", err)
	}
	if string(got) != want {
		t.Errorf("%s differs from the command definitions; regenerate with TETHER_UPDATE_MAN=1 go test -run TestManPage .", path)
	}
	for _, flag := range []string{"--grace", "--outlive-parent", "--any-user", "--dry-run", "--debug"} {
		if !strings.Contains(want, strings.ReplaceAll(flag, "-", "\\\\-")) && !strings.Contains(want, flag) {
			t.Errorf("the manual page does not mention %s", flag)
		}
	}
	if man, err := exec.LookPath("man"); err == nil {
		out, err := exec.Command(man, "-l", path).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "tether") {
			t.Errorf("man -l %s: %v: %.200s", path, err, out)
		}
	}
}
