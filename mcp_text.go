package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/tetherproc/tether/internal/mcpconfig"
)

// The words of tether mcp: each client's name, each entry's fate, each
// refusal's one line.

// clientTitle is a client's name as its makers write it. (A switch,
// not a map: a package-level map is built at every start of tether.)
func clientTitle(c mcpconfig.Client) string {
	switch c {
	case mcpconfig.ClaudeCode:
		return "Claude Code"
	case mcpconfig.ClaudeDesktop:
		return "Claude Desktop"
	case mcpconfig.Cursor:
		return "Cursor"
	case mcpconfig.VSCode:
		return "VS Code"
	case mcpconfig.Windsurf:
		return "Windsurf"
	case mcpconfig.Gemini:
		return "Gemini CLI"
	case mcpconfig.Codex:
		return "Codex"
	}
	return "MCP config"
}

// fileTitle is the line that heads a file's entries.
func fileTitle(d *mcpconfig.Document) string {
	s := clientTitle(d.Location.Client) + ": " + d.Location.Path
	if d.Target != d.Location.Path {
		s += " -> " + d.Target
	}
	if d.Location.Project {
		s += " (project file)"
	}
	return sanitize(s)
}

// listProjects names the project files wrap or unwrap leaves without
// --project, one line each.
func listProjects(w io.Writer, op string, locs []mcpconfig.Location) error {
	for _, l := range locs {
		if _, err := fmt.Fprintf(w, "%s (project file: --project to %s it)\n", sanitize(clientTitle(l.Client)+": "+l.Path), op); err != nil {
			return err
		}
	}
	return nil
}

// serverTitle is an entry's name, with its project in a file that
// holds several projects' servers.
func serverTitle(e mcpconfig.Entry) string {
	if e.Project != "" {
		return sanitize(e.Server + " (project " + e.Project + ")")
	}
	return sanitize(e.Server)
}

// entryText is what an entry is, for list.
func entryText(e mcpconfig.Entry) string {
	line := joinArgv(append([]string{e.Command}, e.Args...))
	switch e.Kind {
	case mcpconfig.Stdio:
		return "stdio: " + sanitize(line)
	case mcpconfig.Wrapped:
		return "through tether: " + sanitize(line)
	case mcpconfig.Remote:
		return "URL: " + sanitize(strings.TrimSpace(e.Transport+" "+e.URL))
	}
	return "not a stdio server's command and args, or not in a table of its own"
}

// listMCP lists each file read and its servers, then each file that
// could not be read, on a line with why.
func listMCP(w io.Writer, docs []*mcpconfig.Document, bad []unread) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	defer func() {
		for _, u := range bad {
			// The file's name heads the line before: its reason alone.
			why := strings.TrimPrefix(refusalWhy(u.err), u.loc.Path+" ")
			fmt.Fprintf(w, "%s\n  %s\n", sanitize(clientTitle(u.loc.Client)+": "+u.loc.Path), sanitize(why))
		}
	}()
	for _, d := range docs {
		fmt.Fprintln(tw, fileTitle(d))
		entries := d.Entries()
		if len(entries) == 0 {
			fmt.Fprintln(tw, "  (no servers)")
		}
		for _, e := range entries {
			fmt.Fprintf(tw, "  %s\t%s\n", serverTitle(e), entryText(e))
		}
	}
	return tw.Flush()
}

// actionText is an entry's fate in wrap or unwrap.
func actionText(c mcpconfig.Change, dry bool) string {
	switch c.Action {
	case mcpconfig.DidWrap, mcpconfig.DidUnwrap:
		verb := map[mcpconfig.Action]string{mcpconfig.DidWrap: "wrap", mcpconfig.DidUnwrap: "unwrap"}[c.Action]
		if dry {
			return "would " + verb
		}
		return verb + "ped"
	case mcpconfig.AlreadyWrapped:
		return "already runs through tether"
	case mcpconfig.NotWrapped:
		return "not wrapped: left as it is"
	case mcpconfig.Foreign:
		return "runs through tether, not as wrap writes it: left as it is"
	case mcpconfig.LeftRemote:
		return "a URL server (" + sanitize(strings.TrimSpace(c.Entry.Transport+" "+c.Entry.URL)) + "): no process to tie, left alone"
	}
	return "not a stdio server's command and args, or not in a table of its own: left as it is"
}

// reportMCP says, per file, each entry's fate (and with --dry-run its
// diff), the backups written, and a count.
func reportMCP(w io.Writer, op string, dry bool, plans []mcpconfig.Plan, backups []string) error {
	changed, files := 0, 0
	for i, p := range plans {
		fmt.Fprintln(w, fileTitle(p.Document))
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, c := range p.Changes {
			fmt.Fprintf(tw, "  %s\t%s\n", serverTitle(c.Entry), actionText(c, dry))
			if c.Action.Changed() {
				changed++
			}
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		if dry {
			writeDiffs(w, p)
		}
		if p.Changed() {
			files++
		}
		if i < len(backups) && backups[i] != "" {
			fmt.Fprintf(w, "  backup: %s\n", sanitize(backups[i]))
		}
	}
	verb := map[string]string{"wrap": "wrapped", "unwrap": "unwrapped"}[op]
	switch {
	case changed == 0:
		_, err := fmt.Fprintf(w, "nothing to %s\n", op)
		return err
	case dry:
		_, err := fmt.Fprintf(w, "would have %s %d %s in %d %s (dry run: nothing written)\n", verb, changed, plural(changed, "server"), files, plural(files, "file"))
		return err
	}
	_, err := fmt.Fprintf(w, "%s %d %s in %d %s\n", verb, changed, plural(changed, "server"), files, plural(files, "file"))
	return err
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// writeDiffs writes each changed entry's lines, before and after.
func writeDiffs(w io.Writer, p mcpconfig.Plan) {
	for _, c := range p.Changes {
		if !c.Action.Changed() {
			continue
		}
		fmt.Fprintf(w, "  --- %s: %s, line %d\n", sanitize(p.Document.Location.Path), serverTitle(c.Entry), c.Line)
		for _, l := range c.Before {
			fmt.Fprintf(w, "  -%s\n", diffLine(l))
		}
		for _, l := range c.After {
			fmt.Fprintf(w, "  +%s\n", diffLine(l))
		}
	}
}

// diffLine is a line of a file made safe for a terminal, its tabs kept.
func diffLine(l string) string {
	parts := strings.Split(l, "\t")
	for i, s := range parts {
		parts[i] = sanitize(s)
	}
	return strings.Join(parts, "\t")
}

// mcpRefusal is a refused file's one line: exit 1, nothing changed.
func mcpRefusal(cmd string, err error) error {
	var r *mcpconfig.Refusal
	if !errors.As(err, &r) {
		return failf("%s: %v", cmd, err)
	}
	why := refusalWhy(r)
	if r.Reason == mcpconfig.NotParsed || r.Reason == mcpconfig.Unreadable {
		why += ": leave it out with --client or --config"
	}
	return cli.Exit(fmt.Sprintf("%s: refused, nothing changed: %s", cmd, why), 1)
}

// refusalWhy is what is wrong with a file, in words.
func refusalWhy(err error) string {
	var r *mcpconfig.Refusal
	if !errors.As(err, &r) {
		return sanitize(err.Error())
	}
	var why string
	switch r.Reason {
	case mcpconfig.NotParsed:
		why = fmt.Sprintf("%s does not parse (%v)", r.Path, firstLine(r.Err.Error()))
	case mcpconfig.NotRegular:
		why = fmt.Sprintf("%s is not a regular file", r.Path)
	case mcpconfig.Unreadable:
		why = fmt.Sprintf("%s could not be read (%v)", r.Path, r.Err)
	case mcpconfig.Changed:
		why = fmt.Sprintf("%s changed while tether was editing it (a running client rewrites its file): run it again", r.Path)
	case mcpconfig.ForeignSymlink:
		why = fmt.Sprintf("%s is a symbolic link to %s, which uid %d owns: not written through", r.Path, r.Target, r.Owner)
	case mcpconfig.NotOwner:
		why = fmt.Sprintf("%s is owned by uid %d: replaced, it would be yours (only root keeps a file's owner)", r.Path, r.Owner)
	case mcpconfig.ReadOnly:
		why = fmt.Sprintf("%s is read-only: give it write permission (chmod u+w) to have it changed", r.Path)
	case mcpconfig.HardLinks:
		why = fmt.Sprintf("%s has %d hard links: replacing it would break them", r.Path, r.Links)
	case mcpconfig.Shared:
		why = fmt.Sprintf("%s (%s) and %s (%s) are one file, %s, which the two clients lay out differently: name one with --config and its --client",
			r.Other, clientTitle(r.Clients[0]), r.Path, clientTitle(r.Clients[1]), r.Target)
	default:
		why = fmt.Sprintf("%s: the edit of server %q did not read back as meant (%v): please report it", r.Path, r.Server, r.Err)
	}
	return why
}

// noClient is the line of a run that found no file to work on.
func noClient(cmd string, env mcpconfig.Env, clients []mcpconfig.Client) error {
	var names []string
	for _, c := range clients {
		names = append(names, string(c))
	}
	of := "any MCP client"
	if len(names) > 0 {
		of = strings.Join(names, ", ")
	}
	where := env.Home
	if env.Dir != "" && env.Dir != env.Home {
		where += " and " + env.Dir
	}
	changed := "nothing changed; "
	if strings.HasSuffix(cmd, " list") {
		changed = ""
	}
	return cli.Exit(fmt.Sprintf("%s: no configuration file of %s found (looked in %s): %sname one with --config FILE", cmd, of, where, changed), 1)
}
