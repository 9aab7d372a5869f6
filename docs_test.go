package main

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/urfave/cli/v2"
)

// The reference in docs/commands.md is written by hand; these tests hold
// it to the command definitions (newApp), as TestManPage holds the man
// page: every command has its section, and every section's synopsis and
// flag table name exactly the command's flags, with their defaults.

const commandsDoc = "docs/commands.md"

// docFiles are the pages whose links and tether command lines are checked.
func docFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{"README.md"}, files...)
}

func readDoc(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// docSections splits a page at its "## " headings: heading -> body.
func docSections(page string) map[string]string {
	sections := map[string]string{}
	var name string
	var body strings.Builder
	inFence := false
	flush := func() {
		if name != "" {
			sections[name] = body.String()
		}
		body.Reset()
	}
	for line := range strings.Lines(page) {
		if strings.HasPrefix(line, "```") {
			inFence = !inFence
		}
		if !inFence && strings.HasPrefix(line, "## ") {
			flush()
			name = strings.TrimSpace(strings.TrimPrefix(line, "## "))
			continue
		}
		body.WriteString(line)
	}
	flush()
	return sections
}

// synopsis is the first fenced block of a section.
func synopsis(section string) string {
	_, rest, ok := strings.Cut(section, "```")
	if !ok {
		return ""
	}
	_, rest, _ = strings.Cut(rest, "\n") // the info string
	block, _, _ := strings.Cut(rest, "```")
	return block
}

var longFlag = regexp.MustCompile(`--[a-z][a-z0-9-]*`)

// flagRows reads a section's flag table: the rows whose first cell names
// flags in backquotes (`--port PORT`, `-p PORT`, `--contain[=MODE]`).
// It returns each name, with dashes, mapped to the row's default cell.
func flagRows(section string) map[string]string {
	rows := map[string]string{}
	for line := range strings.Lines(section) {
		if !strings.HasPrefix(line, "| `-") {
			continue
		}
		cells := strings.Split(line, "|")
		if len(cells) < 4 {
			continue
		}
		spans := strings.Split(cells[1], "`")
		for i := 1; i < len(spans); i += 2 {
			name, _, _ := strings.Cut(spans[i], " ")
			name, _, _ = strings.Cut(name, "[")
			name, _, _ = strings.Cut(name, "=")
			rows[name] = strings.TrimSpace(cells[2])
		}
	}
	return rows
}

// flagNames are a flag's names as typed: --port, -p.
func flagNames(f cli.Flag) []string {
	var names []string
	for _, n := range f.Names() {
		names = append(names, dashed(n))
	}
	return names
}

// defaultText is a flag's default as the help shows it, unquoted; "" for
// none and for a boolean's false.
func defaultText(f cli.Flag) string {
	df, ok := f.(cli.DocGenerationFlag)
	if !ok {
		return ""
	}
	d := df.GetDefaultText()
	if u, err := strconv.Unquote(d); err == nil {
		d = u
	}
	if d == "false" {
		return ""
	}
	return d
}

// checkFlags holds a section to a set of flags: its table names each
// flag (every name of it) and no other, with the flag's default where it
// has one; its synopsis names each long flag and no other.
func checkFlags(t *testing.T, what, section string, flags []cli.Flag) {
	t.Helper()
	want := map[string]cli.Flag{}
	for _, f := range flags {
		for _, n := range flagNames(f) {
			want[n] = f
		}
	}
	rows := flagRows(section)
	for name, f := range want {
		def, ok := rows[name]
		if !ok {
			t.Errorf("%s: %s: no row for %s in the flag table", commandsDoc, what, name)
			continue
		}
		if d := defaultText(f); d != "" && !strings.Contains(def, "`"+d+"`") {
			t.Errorf("%s: %s: %s: default cell %q, want it to name `%s`", commandsDoc, what, name, def, d)
		}
	}
	for name := range rows {
		if _, ok := want[name]; !ok {
			t.Errorf("%s: %s: the flag table names %s, which %s does not have", commandsDoc, what, name, what)
		}
	}
	syn := synopsis(section)
	if syn == "" {
		t.Errorf("%s: %s: no synopsis (a fenced block)", commandsDoc, what)
		return
	}
	inSynopsis := map[string]bool{}
	for _, n := range longFlag.FindAllString(syn, -1) {
		inSynopsis[n] = true
		if _, ok := want[n]; !ok && n != "--help" {
			t.Errorf("%s: %s: the synopsis names %s, which %s does not have", commandsDoc, what, n, what)
		}
	}
	for name := range want {
		if strings.HasPrefix(name, "--") && !inSynopsis[name] {
			t.Errorf("%s: %s: the synopsis lacks %s", commandsDoc, what, name)
		}
	}
}

// docApp is the app as its users meet it: with the --version and --help
// flags urfave/cli adds as it runs.
func docApp() (app *cli.App, global []cli.Flag) {
	app = newApp(io.Discard, io.Discard)
	return app, append(slices.Clone(app.Flags), cli.VersionFlag, cli.HelpFlag)
}

// docs/commands.md has a section for every command and none for a
// command that does not exist; each section's synopsis and flag table
// name exactly its command's flags. Global options likewise.
func TestDocCommands(t *testing.T) {
	app, global := docApp()
	sections := docSections(readDoc(t, commandsDoc))

	checkFlags(t, "global options", sections["Global options"], global)
	if _, ok := sections["Global options"]; !ok {
		t.Errorf("%s: no section \"Global options\"", commandsDoc)
	}

	documented := map[string]bool{}
	for heading := range sections {
		if name, ok := strings.CutPrefix(heading, "`tether "); ok {
			name = strings.TrimSuffix(name, "`")
			documented[name] = true
			if app.Command(name) == nil {
				t.Errorf("%s: a section for tether %s, which is not a command", commandsDoc, name)
			}
		}
	}
	for _, c := range app.Commands {
		if c.Hidden {
			continue
		}
		section, ok := sections["`tether "+c.Name+"`"]
		if !ok {
			t.Errorf("%s: no section \"`tether %s`\"", commandsDoc, c.Name)
			continue
		}
		if !strings.HasPrefix(strings.TrimSpace(synopsis(section)), "tether "+c.Name) {
			t.Errorf("%s: tether %s: the synopsis does not start with \"tether %s\"", commandsDoc, c.Name, c.Name)
		}
		checkFlags(t, "tether "+c.Name, section, commandFlags(c))
	}
}

// commandFlags are a command's flags and its subcommands' (tether mcp
// wrap, unwrap, list), each name once: one section documents them all.
func commandFlags(c *cli.Command) []cli.Flag {
	out := slices.Clone(c.Flags)
	seen := map[string]bool{}
	for _, f := range out {
		seen[f.Names()[0]] = true
	}
	for _, sub := range c.Subcommands {
		for _, f := range sub.Flags {
			if !seen[f.Names()[0]] {
				seen[f.Names()[0]] = true
				out = append(out, f)
			}
		}
	}
	return out
}

// Every tether command line in README.md and docs/ (a code span, a line
// of a code block) names an existing command, and only flags that
// command (or, before it, tether itself) has.
func TestDocCommandLines(t *testing.T) {
	app, global := docApp()
	globalNames := map[string]bool{}
	for _, f := range global {
		for _, n := range flagNames(f) {
			globalNames[n] = true
		}
	}
	for _, path := range docFiles(t) {
		for _, line := range codeLines(readDoc(t, path)) {
			for _, msg := range checkCommandLine(app, globalNames, line) {
				t.Errorf("%s: %q: %s", path, line, msg)
			}
		}
	}
}

// codeLines are the lines of a page's code blocks and its code spans.
func codeLines(page string) []string {
	var out []string
	inFence := false
	for line := range strings.Lines(page) {
		line = strings.TrimRight(line, "\n")
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inFence = !inFence
			continue
		}
		if inFence {
			out = append(out, line)
			continue
		}
		spans := strings.Split(line, "`")
		for i := 1; i < len(spans)-1; i += 2 {
			out = append(out, spans[i])
		}
	}
	return out
}

// shellBreak ends a command line: what follows is another command, a
// redirection or a comment. In a synopsis, | between alternatives ends
// the check early, never wrongly.
func shellBreak(tok string) bool {
	switch tok {
	case "--", "|", "||", "&&", ";", "&", ">", ">>", "<", "2>", "2>&1":
		return true
	}
	return strings.HasPrefix(tok, "#") || strings.HasPrefix(tok, ">")
}

// checkCommandLine checks each "tether [GLOBAL...] COMMAND [ARG...]" in
// line; a word after tether that is not a command (tether-init) is not
// the command line.
func checkCommandLine(app *cli.App, global map[string]bool, line string) []string {
	var msgs []string
	toks := strings.Fields(line)
	for i, tok := range toks {
		if tok != "tether" {
			continue
		}
		j := i + 1
		for ; j < len(toks) && strings.HasPrefix(flagToken(toks[j]), "-") && !shellBreak(toks[j]); j++ {
			if f := flagToken(toks[j]); !global[f] {
				msgs = append(msgs, "tether has no global flag "+f)
			}
		}
		if j >= len(toks) {
			continue
		}
		cmd := app.Command(toks[j])
		if cmd == nil || cmd.Hidden {
			continue
		}
		names := map[string]bool{"--help": true, "-h": true}
		for _, f := range commandFlags(cmd) {
			for _, n := range flagNames(f) {
				names[n] = true
			}
		}
		for _, tok := range toks[j+1:] {
			if shellBreak(tok) {
				break
			}
			if f := flagToken(tok); strings.HasPrefix(f, "-") && len(f) > 1 && !names[f] {
				msgs = append(msgs, "tether "+cmd.Name+" has no flag "+f)
			}
		}
	}
	return msgs
}

// flagToken is the flag a word of a synopsis or a command line names:
// [--name -> --name, --contain[=MODE] -> --contain, --port=80 -> --port;
// a word that names no flag comes back as it was.
func flagToken(tok string) string {
	tok = strings.TrimLeft(tok, "[(")
	if !strings.HasPrefix(tok, "-") || tok == "--" {
		return tok
	}
	end := len(tok)
	for k, r := range tok {
		if k > 0 && !(r == '-' || unicode.IsLetter(r) || unicode.IsDigit(r)) {
			end = k
			break
		}
	}
	return tok[:end]
}

var (
	mdLink    = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	htmlID    = regexp.MustCompile(`<a id="([^"]+)">`)
	codeSpans = regexp.MustCompile("`[^`]*`")
)

// anchors are the link targets of a page: its headings as GitHub names
// them, and <a id> tags.
func anchors(page string) map[string]bool {
	out := map[string]bool{}
	inFence := false
	for line := range strings.Lines(page) {
		if strings.HasPrefix(line, "```") {
			inFence = !inFence
			continue
		}
		for _, m := range htmlID.FindAllStringSubmatch(line, -1) {
			out[m[1]] = true
		}
		if inFence || !strings.HasPrefix(line, "#") {
			continue
		}
		text := strings.TrimSpace(strings.TrimLeft(line, "#"))
		slug := headingSlug(text)
		base := slug
		for n := 1; out[slug]; n++ {
			slug = base + "-" + strconv.Itoa(n)
		}
		out[slug] = true
	}
	return out
}

// headingSlug is GitHub's anchor for a heading: lower case, spaces made
// hyphens, everything but letters, digits, hyphens and underscores left
// out.
func headingSlug(text string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Every relative link in README.md and docs/ leads to a file, and its
// anchor, if any, to a heading of that file.
func TestDocLinks(t *testing.T) {
	for _, path := range docFiles(t) {
		page := readDoc(t, path)
		sc := bufio.NewScanner(strings.NewReader(page))
		inFence := false
		for n := 1; sc.Scan(); n++ {
			line := sc.Text()
			if strings.HasPrefix(line, "```") {
				inFence = !inFence
				continue
			}
			if inFence {
				continue
			}
			for _, m := range mdLink.FindAllStringSubmatch(codeSpans.ReplaceAllString(line, ""), -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				file, anchor, _ := strings.Cut(target, "#")
				dest := path
				if file != "" {
					dest = filepath.Join(filepath.Dir(path), file)
				}
				if _, err := os.Stat(dest); err != nil {
					t.Errorf("%s:%d: link %s: %v", path, n, target, err)
					continue
				}
				if anchor == "" || !strings.HasSuffix(dest, ".md") {
					continue
				}
				if !anchors(readDoc(t, dest))[anchor] {
					t.Errorf("%s:%d: link %s: %s has no heading #%s", path, n, target, dest, anchor)
				}
			}
		}
	}
}

// The README is read in five minutes: at most 400 lines, and it keeps
// the two commands a checkout needs, the build and the tests.
func TestDocREADME(t *testing.T) {
	readme := readDoc(t, "README.md")
	if n := strings.Count(readme, "\n"); n > 400 {
		t.Errorf("README.md has %d lines; keep it to 400 and move the reference to docs/", n)
	}
	for _, want := range []string{"CGO_ENABLED=0 go build -tags urfave_cli_no_docs -o . . && ./tether --help", "go test -count=1 ./..."} {
		if !strings.Contains(readme, want) {
			t.Errorf("README.md lacks %q", want)
		}
	}
}
