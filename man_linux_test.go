//go:build !urfave_cli_no_docs

package main

import (
	"fmt"
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
	plainFlags(app)
	reflowData(app)
	for _, c := range app.Commands {
		reflowData(c)
	}
	page, err := app.ToManWithSection(1)
	if err != nil {
		t.Fatal(err)
	}
	return page + manExitStatus(t) + manExamples(app)
}

// manExitStatus is the page's EXIT STATUS section, from the one table of
// docs/commands.md, so that the two never say different things.
func manExitStatus(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("docs/commands.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(data), "## Exit statuses\n")
	if !ok {
		t.Fatal("docs/commands.md: no section Exit statuses")
	}
	table, _, _ = strings.Cut(table, "\n## ")
	var b strings.Builder
	b.WriteString("\n.SH EXIT STATUS\n")
	for _, line := range strings.Split(table, "\n") {
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		if len(cells) != 3 || cells[0] == "exit" || strings.HasPrefix(cells[0], "-") {
			continue
		}
		fmt.Fprintf(&b, ".TP\n\\fB%s\\fP (%s)\n%s\n", roff(cells[0]), roff(cells[1]), roff(cells[2]))
	}
	return b.String()
}

// manExamples is the page's EXAMPLES section: each command's examples,
// as its help gives them.
func manExamples(app *cli.App) string {
	var b strings.Builder
	b.WriteString("\n.SH EXAMPLES\n.EX\n")
	for _, c := range app.Commands {
		_, ex, ok := strings.Cut(c.Description, "Examples:\n")
		if !ok {
			continue
		}
		for _, line := range strings.Split(ex, "\n") {
			if line = strings.TrimSpace(line); line != "" {
				b.WriteString(roff(line) + "\n")
			}
		}
	}
	b.WriteString(".EE\n")
	return b.String()
}

// roff is text of docs/commands.md as roff: backquotes dropped,
// backslashes and leading dots escaped, dashes made minus signs.
func roff(s string) string {
	s = strings.ReplaceAll(s, "`", "")
	s = strings.ReplaceAll(s, "\\", "\\e")
	s = strings.ReplaceAll(s, "-", "\\-")
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = "\\&" + s
	}
	return s
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
