package main

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/tetherproc/tether/internal/mcpconfig"
	"github.com/tetherproc/tether/marker"
)

// mcpCommand is tether mcp wrap|unwrap|list: every stdio server of the
// user's MCP clients put behind tether run --hangup in one command, and
// given back as it was.
func mcpCommand() *cli.Command {
	return &cli.Command{
		Name:      "mcp",
		Usage:     "wrap every stdio server of your MCP clients' configs in tether run, unwrap them, list them",
		UsageText: "tether mcp wrap|unwrap|list [options]",
		Description: "wrap makes each stdio server entry of the clients' files run through tether:\n" +
			"command becomes this tether's absolute path, args become run --hangup --name NAME --\n" +
			"and the entry's own command and args. unwrap gives the entries back byte for byte.\n" +
			"The working directory's project files (.mcp.json, .vscode/mcp.json ...) are usually\n" +
			"committed and shared: wrap and unwrap name them and leave them, unless --project.\n" +
			"URL servers are left alone. Both change nothing a second time. Each file changed gets a\n" +
			"backup beside it (FILE.tether-backup-TIME) and is replaced whole, atomically.\n" +
			"Exit status: 0 done (or nothing to do); 1 refused, nothing changed (a file that does not\n" +
			"parse, one a client changed meanwhile, a symbolic link to another user's file, another\n" +
			"user's, read-only or hard-linked file, no client found; list: a file it could not\n" +
			"read); 125 bad usage, or a file that could not be written.\n\n" +
			"Examples:\n" +
			"   tether mcp list\n" +
			"   tether mcp wrap --dry-run\n" +
			"   tether mcp wrap\n" +
			"   tether mcp wrap --client codex --client claude-code\n" +
			"   tether mcp unwrap --config .vscode/mcp.json",
		HideHelpCommand: true,
		OnUsageError:    usageError,
		Subcommands: []*cli.Command{
			mcpSubcommand("wrap", "make each stdio server run through tether", true),
			mcpSubcommand("unwrap", "put each server back to its own command and args, as it was before wrap", true),
			mcpSubcommand("list", "list the clients' files found and each server in them", false),
		},
		Action: func(c *cli.Context) error {
			if c.Args().Present() {
				return usagef("tether mcp: unknown command %q (wrap, unwrap or list)", c.Args().First())
			}
			return usagef("tether mcp: wrap, unwrap or list? (usage: tether mcp wrap|unwrap|list [options])")
		},
	}
}

func mcpSubcommand(name, usage string, writes bool) *cli.Command {
	flags := []cli.Flag{
		&cli.StringSliceFlag{Name: "client", Usage: "only the files of client `NAME`: " + strings.Join(clientNames(), ", ") + " (repeatable)"},
		&cli.StringSliceFlag{Name: "config", Usage: "only the file `FILE` (repeatable); its client is --client's, or known by its name"},
	}
	if writes {
		flags = append(flags, &cli.BoolFlag{Name: "dry-run", Usage: "write nothing; print each entry's change as a diff"},
			&cli.BoolFlag{Name: "project", Usage: "the working directory's project files too (.mcp.json, .vscode/mcp.json ...), which are usually committed and shared"})
	}
	switch name {
	case "wrap":
		flags = append(flags, &cli.StringFlag{Name: "tether", Usage: "the tether the entries run, an absolute `PATH` (default: this one; the one on PATH when it is this one)"})
	case "unwrap":
		flags = append(flags, &cli.StringFlag{Name: "tether", Usage: "also unwrap entries whose command is the tether at absolute `PATH`, whatever that file's name"})
	}
	return &cli.Command{
		Name:            name,
		Usage:           usage,
		HideHelpCommand: true,
		OnUsageError:    usageError,
		Flags:           flags,
		Action:          func(c *cli.Context) error { return runMCP(c, name) },
	}
}

func clientNames() []string {
	var out []string
	for _, c := range mcpconfig.Clients() {
		out = append(out, string(c))
	}
	return out
}

// runMCP reads every file, plans every change, and only then writes:
// a refusal of any file leaves every file as it was.
func runMCP(c *cli.Context, op string) error {
	cmd := "tether mcp " + op
	if c.Args().Present() {
		return usagef("%s: unexpected argument %q", cmd, c.Args().First())
	}
	if op == "wrap" && !wrapSupported {
		return failf("%s: tether run does not supervise on %s (it exits 125 without starting anything): a wrapped server would not start; nothing changed", cmd, runtime.GOOS)
	}
	w, err := mcpWrapping(c, cmd)
	if err != nil {
		return err
	}
	files, err := mcpDocuments(c, cmd, w)
	if err != nil {
		return err
	}
	if op == "list" {
		if err := listMCP(c.App.Writer, files.docs, files.bad); err != nil || len(files.bad) == 0 {
			return writeOrFail(cmd, err)
		}
		return cli.Exit("", 1)
	}
	if err := writeOrFail(cmd, listProjects(c.App.Writer, op, files.projects)); err != nil {
		return err
	}
	plans := make([]mcpconfig.Plan, 0, len(files.docs))
	for _, d := range files.docs {
		edit := d.Wrap
		if op == "unwrap" {
			edit = d.Unwrap
		}
		p, err := edit()
		if err != nil {
			return mcpRefusal(cmd, err)
		}
		plans = append(plans, p)
	}
	dry := c.Bool("dry-run")
	var backups []string
	if !dry {
		backups, err = mcpconfig.Commit(plans, time.Now())
		var we *mcpconfig.WriteError
		if errors.As(err, &we) {
			return partlyWritten(c.App.Writer, cmd, op, plans, backups, we)
		}
		if err != nil {
			return mcpRefusal(cmd, err)
		}
	}
	return writeOrFail(cmd, reportMCP(c.App.Writer, op, dry, plans, backups))
}

// partlyWritten is a run whose renames stopped at a file: the report of
// the files already replaced, then a line that names the file and says
// the others were left as they were.
func partlyWritten(w io.Writer, cmd, op string, plans []mcpconfig.Plan, backups []string, we *mcpconfig.WriteError) error {
	var done []mcpconfig.Plan
	var kept []string
	for i, p := range plans {
		if backups[i] != "" {
			done, kept = append(done, p), append(kept, backups[i])
		}
	}
	if len(done) > 0 {
		if err := reportMCP(w, op, false, done, kept); err != nil {
			return failf("%s: write: %v", cmd, err)
		}
	}
	if len(done) == 0 {
		return failf("%s: %s could not be replaced (%v): nothing changed", cmd, sanitize(we.Path), we.Err)
	}
	return failf("%s: %s could not be replaced (%v): the files above were changed, every other file was left as it was", cmd, sanitize(we.Path), we.Err)
}

func writeOrFail(cmd string, err error) error {
	if err != nil {
		return failf("%s: write: %v", cmd, err)
	}
	return nil
}

// mcpWrapping is what wrap writes: the tether to run and its args, the
// server's key as the run's name.
func mcpWrapping(c *cli.Context, cmd string) (mcpconfig.Wrapping, error) {
	w := mcpconfig.Wrapping{Program: "tether", Prefix: func(server string) []string {
		return []string{"run", "--hangup", "--name", mcpName(server), "--"}
	}}
	if p := c.String("tether"); c.Command.Name != "list" && c.IsSet("tether") {
		if !filepath.IsAbs(p) {
			return w, usagef("%s: --tether: %q is not an absolute path (a client starts servers with its own PATH)", cmd, p)
		}
		if fi, err := os.Stat(p); err != nil || fi.IsDir() {
			return w, usagef("%s: --tether: %q is not a file", cmd, p)
		}
		w.Command = p
		return w, nil
	}
	p, err := tetherPath()
	if err != nil {
		return w, failf("%s: this tether's path: %v", cmd, err)
	}
	w.Command = p
	return w, nil
}

// tetherPath is the absolute path of this tether. Where the tether on
// PATH is this same file, its path there is taken as it is, links
// unresolved: a package manager's stable link (Homebrew's bin/tether)
// outlives the versioned file it points to, which an upgrade removes.
func tetherPath() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	if exe, err = filepath.EvalSymlinks(exe); err != nil {
		return "", err
	}
	if found, err := exec.LookPath("tether"); err == nil && filepath.IsAbs(found) {
		if real, err := filepath.EvalSymlinks(found); err == nil && real == exe {
			return found, nil
		}
	}
	return exe, nil
}

// mcpName is a server's key made a name of the protocol: each byte
// outside A-Z a-z 0-9 . _ - made '_', cut to the longest allowed.
func mcpName(server string) string {
	b := []byte(server)
	for i, c := range b {
		if marker.ValidateName(string(c)) != nil {
			b[i] = '_'
		}
	}
	if len(b) > marker.MaxNameLen {
		b = b[:marker.MaxNameLen]
	}
	if len(b) == 0 {
		return "mcp"
	}
	return string(b)
}

// mcpDocuments opens the files asked for: --config's, or every file
// of --client's clients (all clients) that exists. A file that cannot
// be read refuses the run, unless list is the command: then it is
// among the unread, for list to show.
func mcpDocuments(c *cli.Context, cmd string, w mcpconfig.Wrapping) (f mcpFiles, err error) {
	locs, given, clients, err := mcpLocations(c, cmd)
	if err != nil {
		return f, err
	}
	for _, loc := range locs {
		if loc.Project && c.Command.Name != "list" && !c.Bool("project") {
			// Shared in a repository: this user's tether path and
			// backups are not written there unless asked for.
			if fi, err := os.Stat(loc.Path); err == nil && fi.Mode().IsRegular() {
				f.projects = append(f.projects, loc)
			}
			continue
		}
		d, err := mcpconfig.Open(loc, w)
		switch {
		case errors.Is(err, fs.ErrNotExist) && !given:
			continue
		case errors.Is(err, fs.ErrNotExist):
			return f, usagef("%s: --config: %s: no such file", cmd, loc.Path)
		case err != nil && c.Command.Name == "list":
			f.bad = append(f.bad, unread{loc, err})
			continue
		case err != nil:
			return f, mcpRefusal(cmd, err)
		}
		f.docs = append(f.docs, d)
	}
	if len(f.docs)+len(f.bad)+len(f.projects) == 0 {
		return f, noClient(cmd, mcpEnv(), clients)
	}
	if f.docs, err = mcpconfig.Distinct(f.docs); err != nil {
		return f, mcpRefusal(cmd, err)
	}
	return f, nil
}

// mcpFiles are the files of a run: those read, those list could not
// read, and the project files wrap and unwrap leave without --project.
type mcpFiles struct {
	docs     []*mcpconfig.Document
	bad      []unread
	projects []mcpconfig.Location
}

// unread is a file list could not read, and why.
type unread struct {
	loc mcpconfig.Location
	err error
}

// mcpLocations are the files asked for, whether they were named
// (--config), and the clients asked for.
func mcpLocations(c *cli.Context, cmd string) (_ []mcpconfig.Location, given bool, _ []mcpconfig.Client, _ error) {
	var clients []mcpconfig.Client
	for _, name := range c.StringSlice("client") {
		if !slices.Contains(clientNames(), name) {
			return nil, false, nil, usagef("%s: --client: unknown client %q (want one of %s)", cmd, name, strings.Join(clientNames(), ", "))
		}
		clients = append(clients, mcpconfig.Client(name))
	}
	configs := c.StringSlice("config")
	if len(configs) == 0 {
		return mcpconfig.Locate(mcpEnv(), clients...), false, clients, nil
	}
	var locs []mcpconfig.Location
	for _, path := range configs {
		client := mcpconfig.Guess(path)
		if len(clients) == 1 {
			client = clients[0]
		}
		abs, err := filepath.Abs(path)
		if err != nil {
			return nil, false, nil, usagef("%s: --config: %q: %v", cmd, path, err)
		}
		locs = append(locs, mcpconfig.Location{Client: client, Path: abs})
	}
	return locs, true, clients, nil
}

// mcpEnv is where the clients' files are looked for: the user's
// directories, and the working directory's project files.
func mcpEnv() mcpconfig.Env {
	home, _ := os.UserHomeDir()
	config, _ := os.UserConfigDir()
	dir, _ := os.Getwd()
	return mcpconfig.Env{Home: home, ConfigDir: config, Dir: dir,
		CodexHome: os.Getenv("CODEX_HOME"), ClaudeConfigDir: os.Getenv("CLAUDE_CONFIG_DIR")}
}
