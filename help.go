package main

import (
	"io"
	"strings"

	"github.com/urfave/cli/v2"
)

// helpWidth is the width help is written to: an 80-column terminal.
const helpWidth = 80

// Help fits 80 columns: each flag's names and placeholder on a line of
// their own, what it does below them, wrapped. urfave/cli's own layout
// puts both on one line, aligned to the longest flag's names, which a
// repeatable flag with a placeholder ("--port [HOST:]PORT, -p
// [HOST:]PORT [ --port ... ]") pushes past any terminal.
func init() {
	cli.FlagStringer = flagHelp
	cli.HelpPrinter = func(w io.Writer, templ string, data any) {
		reflowData(data)
		cli.HelpPrinterCustom(w, templ, data, map[string]any{"wrapAt": func() int { return helpWidth }})
	}
}

// flagHelp is one flag in help: "--grace DURATION" and below it what it
// does, with its default where it has one other than off.
func flagHelp(f cli.Flag) string {
	f = plainFlag(f)
	df, ok := f.(cli.DocGenerationFlag)
	if !ok {
		return ""
	}
	placeholder, usage := splitPlaceholder(df.GetUsage())
	if df.TakesValue() && placeholder == "" {
		placeholder = "VALUE"
		if _, ok := f.(*cli.DurationFlag); ok {
			placeholder = "DURATION"
		}
	}
	var names []string
	for _, n := range df.Names() {
		name := dashed(n)
		if df.TakesValue() {
			name += " " + placeholder
		}
		names = append(names, name)
	}
	head := strings.Join(names, ", ")
	if _, ok := f.(*cli.BoolFlag); !ok {
		if d := df.GetDefaultText(); d != "" && d != `""` {
			usage += " (default: " + strings.Trim(d, `"`) + ")"
		}
	}
	// The template indents the first line by 3 and the rest by 6.
	return head + "\n" + wrapWords(usage, helpWidth-6-2)
}

// splitPlaceholder takes the placeholder out of a flag's usage, the
// word in backquotes, as urfave/cli does: "the `NAME` to stamp" is NAME
// and "the NAME to stamp".
func splitPlaceholder(usage string) (placeholder, text string) {
	i := strings.IndexByte(usage, '`')
	if i < 0 {
		return "", usage
	}
	j := strings.IndexByte(usage[i+1:], '`')
	if j < 0 {
		return "", usage
	}
	placeholder = usage[i+1 : i+1+j]
	return placeholder, usage[:i] + placeholder + usage[i+1+j+1:]
}

// reflow joins the lines of each paragraph of a command's description
// into one, for the help printer to wrap to the terminal's width: a line
// that starts with a space (an example) and a blank line (a paragraph's
// end) are kept as they are.
func reflow(s string) string {
	var b strings.Builder
	lines := strings.Split(s, "\n")
	for i, line := range lines {
		b.WriteString(line)
		if i == len(lines)-1 {
			break
		}
		next := lines[i+1]
		if line == "" || next == "" || strings.HasPrefix(next, " ") || strings.HasPrefix(line, " ") || strings.HasSuffix(line, ":") {
			b.WriteByte('\n')
		} else {
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// reflowData reflows the description of the app or command whose help
// is printed: when it is printed rather than at each start, which would
// cost every run its share.
func reflowData(data any) {
	switch d := data.(type) {
	case *cli.App:
		d.Description = reflow(d.Description)
	case *cli.Command:
		d.Description = reflow(d.Description)
	}
}

// wrapWords breaks s into lines of at most width, at spaces.
func wrapWords(s string, width int) string {
	var b strings.Builder
	n := 0
	for _, w := range strings.Fields(s) {
		switch {
		case n == 0:
		case n+1+len(w) > width:
			b.WriteByte('\n')
			n = 0
		default:
			b.WriteByte(' ')
			n++
		}
		b.WriteString(w)
		n += len(w)
	}
	return b.String()
}
