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

// generatedMan is the manual page of the command line as it is defined:
// NAME, a SYNOPSIS line per command, each command's options as its help
// gives them, EXIT STATUS and EXAMPLES. Written here rather than by
// urfave/cli's generator, which puts each command under a section of its
// own, gives no command a synopsis and shows a duration as ="".
func generatedMan(t *testing.T) string {
	t.Helper()
	app := newApp(io.Discard, io.Discard)
	var b strings.Builder
	b.WriteString(".TH TETHER 1 \"\" \"tether\" \"User Commands\"\n.SH NAME\n")
	fmt.Fprintf(&b, "tether \\- %s\n.SH SYNOPSIS\n", roff(app.Usage))
	for _, c := range app.Commands {
		fmt.Fprintf(&b, ".B tether %s\n%s\n.br\n", c.Name, roff(commandArgs(c)))
	}
	b.WriteString(".B tether \\-\\-version\n.SH DESCRIPTION\n")
	b.WriteString(roff(reflow(app.Description)) + "\n")
	b.WriteString(".SH GLOBAL OPTIONS\n")
	manFlags(&b, append(app.Flags, cli.VersionFlag))
	b.WriteString(".SH COMMANDS\n")
	for _, c := range app.Commands {
		fmt.Fprintf(&b, ".SS \"tether %s %s\"\n%s.\n", c.Name, roff(commandArgs(c)), roff(c.Usage))
		text, _, _ := strings.Cut(reflow(c.Description), "Examples:\n")
		for _, para := range strings.Split(strings.TrimSpace(text), "\n\n") {
			fmt.Fprintf(&b, ".PP\n%s\n", roff(para))
		}
		manFlags(&b, c.Flags)
		for _, sub := range c.Subcommands {
			fmt.Fprintf(&b, ".SS \"tether %s %s %s\"\n%s.\n", c.Name, sub.Name, roff(commandArgs(sub)), roff(sub.Usage))
			manFlags(&b, sub.Flags)
		}
	}
	return b.String() + manExitStatus(t) + manExamples(app)
}

// commandArgs is what follows a command's name in its synopsis.
func commandArgs(c *cli.Command) string {
	args := strings.TrimSpace(c.ArgsUsage)
	if len(c.Flags) > 0 {
		args = strings.TrimSpace("[OPTIONS] " + args)
	}
	return args
}

// manFlags writes each flag as its help does: names and placeholder, then
// what it does with its default.
func manFlags(b *strings.Builder, flags []cli.Flag) {
	for _, f := range flags {
		head, usage, _ := strings.Cut(flagHelp(f), "\n")
		fmt.Fprintf(b, ".TP\n.B %s\n%s\n", roff(head), roff(strings.Join(strings.Fields(usage), " ")))
	}
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
	want := generatedMan(t)
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
	if manPage != want {
		t.Errorf("the page built into the binary differs from %s: rebuild", path)
	}
	for _, flag := range []string{"--grace", "--outlive-parent", "--any-user", "--dry-run", "--debug"} {
		if !strings.Contains(want, strings.ReplaceAll(flag, "-", "\\-")) && !strings.Contains(want, flag) {
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
