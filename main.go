// Command tether ties a child process's life to its parent's, stamps it so
// that it can be recognised later, and reclaims the children that escaped.
//
// This file is the command line only: it turns flags into calls of the
// packages spawn, probe and reclaim and their answers into output and exit
// statuses. One file per command holds the rest.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/mattn/go-isatty"
	"github.com/urfave/cli/v2"

	"github.com/tetherproc/tether/internal/printable"
	"github.com/tetherproc/tether/internal/trace"
	"github.com/tetherproc/tether/spawn"
)

// exitUsage is the status of bad usage; exitFailed of any other failure
// of tether itself rather than of what it was asked about (a refused
// port, a spawn failure, an unwritable output). Both are 125, as with
// env, nice and timeout, so that they are never mistaken for a command's
// own status.
const (
	exitUsage  = 125
	exitFailed = 125
)

func main() {
	trace.FromEnv()
	if !trace.On() {
		// No Go traceback reaches a user: a fatal error of the runtime
		// (no thread can be created under ulimit -u) prints its one
		// reason, not the stacks. TETHER_DEBUG=1 or GOTRACEBACK bring
		// them back. Also in the helpers below, whose stderr may be the
		// user's terminal.
		debug.SetTraceback("none")
	}
	// The watchdog and a contained run's init are this binary started
	// again: Init runs them, before any flag is read, and never returns
	// from them.
	spawn.Init()
	os.Exit(runMain(os.Args, os.Stdout, os.Stderr))
}

// runMain runs the command line args and returns the exit status.
func runMain(args []string, stdout, stderr io.Writer) int {
	// "tether run --help -- sleep 1" is help for run, whatever follows:
	// urfave/cli would look for a help topic named sleep.
	if len(args) > 3 && (args[2] == "--help" || args[2] == "-h") && !strings.HasPrefix(args[1], "-") {
		args = args[:3]
	}
	// "tether -- CMD", as tini and dumb-init are typed (a container's
	// ENTRYPOINT): tether run -- CMD.
	if len(args) >= 2 && args[1] == "--" {
		args = append([]string{args[0], "run"}, args[1:]...)
	}
	out := &checkedWriter{w: stdout}
	app := newApp(out, stderr)
	code := exitStatus(app.Run(args), stderr)
	if out.err != nil && code == 0 {
		// Help and version text that could not be written is a
		// failure, as for any other output (tether --help >/dev/full).
		fmt.Fprintf(stderr, "tether: write: %v\n", out.err)
		return exitFailed
	}
	return code
}

// checkedWriter remembers the first write error, which urfave/cli drops
// when it prints help.
type checkedWriter struct {
	w   io.Writer
	err error
}

func (c *checkedWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	if err != nil && c.err == nil {
		c.err = err
	}
	return n, err
}

func newApp(stdout, stderr io.Writer) *cli.App {
	app := &cli.App{
		Name:  "tether",
		Usage: "tie a child's life to its parent's, recognise it later, reclaim it when stranded",
		Description: "Exit statuses: run gives its command's own (128+N when it died of signal N, which tether\n" +
			"then dies of too; 126 not executable, 127 not found); check 0 tethered, 1 foreign, 2 zombie,\n" +
			"3 gone, 4 unverifiable; reclaim 0 all selected gone, 1 some survived; mcp 0 done, 1 refused;\n" +
			"125 bad usage or tether's own failure, for every command. TETHER_DEBUG=1 or --debug traces each decision.",
		Version: readVersion().short(),
		Writer:  stdout,
		// Errors are printed once, by exitStatus, not by urfave/cli.
		ErrWriter:      stderr,
		ExitErrHandler: func(*cli.Context, error) {},
		OnUsageError:   usageError,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "debug", Usage: "print one line per decision on stderr (as TETHER_DEBUG=1 does)"},
			jsonFlag,
		},
		Before: func(c *cli.Context) error {
			if c.Bool("debug") {
				trace.Enable()
			}
			return checkJSONFlag(c)
		},
		Commands: []*cli.Command{
			runCommand(),
			checkCommand(),
			reclaimCommand(),
			freeCommand(),
			waitCommand(),
			psCommand(),
			mcpCommand(),
			doctorCommand(),
			completionCommand(),
			manCommand(),
		},
		// Completion asks tether itself for candidates; see completion.go.
		EnableBashCompletion: true,
		Action: func(c *cli.Context) error {
			if c.Args().Present() {
				return unknownCommand(c.Args().Slice())
			}
			_ = cli.ShowAppHelp(c)
			return cli.Exit("", exitUsage)
		},
	}
	nameOnce(app)
	return app
}

// usagef is an error of bad usage: exit 125 with one line on stderr.
func usagef(format string, a ...any) error {
	return cli.Exit(fmt.Sprintf(format, a...), exitUsage)
}

// failf is a failure of tether itself that is not bad usage: exit 125
// with one line on stderr.
func failf(format string, a ...any) error {
	return cli.Exit(fmt.Sprintf(format, a...), exitFailed)
}

// unknownCommand answers a command tether does not have in one line,
// with the command that does what it was likely meant for: a port after
// it (tether kill 8080, as kill-port and fkill are typed) is freed with
// tether free.
func unknownCommand(args []string) error {
	for _, a := range args[1:] {
		if ports, err := parsePorts([]string{a}); err == nil && len(ports) > 0 {
			return usagef("tether: unknown command %q: to free port %s, whatever holds it: tether free %s", args[0], a, a)
		}
	}
	return usagef("tether: unknown command %q (try tether --help)", args[0])
}

// usageError makes urfave/cli's own parse errors ("flag provided but not
// defined", "invalid value") one line and exit 125, like tether's own.
func usageError(c *cli.Context, err error, _ bool) error {
	name := "tether" + commandPath(c)
	msg := plainUsage(err.Error())
	if name == "tether reclaim" && forceFlag(msg) {
		// kill-port's and fkill's habit: what --force would have meant.
		msg += ": to end a port's holder that tether did not start: tether free PORT (its listeners only)"
	}
	return usagef("%s: %s", name, msg)
}

// commandPath is the names of c's command and of the commands above it,
// each after a space: a subcommand's error names its parent too
// (tether mcp wrap, not tether wrap).
func commandPath(c *cli.Context) string {
	var path string
	for _, ctx := range c.Lineage() {
		if cmd := ctx.Command; cmd != nil && cmd.Name != "" && cmd.Name != c.App.Name {
			path = " " + cmd.Name + path
		}
	}
	return path
}

// forceFlag reports whether msg is the unknown flag of a user who wants
// a port's holder ended whatever it is: --force, -f, --kill, -9.
func forceFlag(msg string) bool {
	for _, f := range []string{"--force", "-f", "--kill", "-9"} {
		if msg == "unknown flag "+f {
			return true
		}
	}
	return false
}

// badValue parses urfave/cli's message for a flag value that does not
// parse, `invalid value "VALUE" for flag -NAME: REASON`, into the value
// and the flag's name. (Not a regular expression: compiling one is paid
// at every start.)
func badValue(msg string) (value, name string, ok bool) {
	rest, ok := strings.CutPrefix(msg, `invalid value "`)
	if !ok {
		return "", "", false
	}
	i := strings.LastIndex(rest, `" for flag -`)
	if i < 0 {
		return "", "", false
	}
	name, _, ok = strings.Cut(rest[i+len(`" for flag -`):], ": ")
	if !ok || name == "" || strings.Trim(name, "abcdefghijklmnopqrstuvwxyz-") != "" {
		return "", "", false
	}
	return rest[:i], name, true
}

// plainUsage says urfave/cli's parse errors as tether's own: flags with
// their two dashes, and what a duration looks like.
func plainUsage(msg string) string {
	if value, name, ok := badValue(msg); ok {
		if name == "grace" {
			return fmt.Sprintf("--grace: invalid duration %q (want a number and a unit: 5s, 500ms, 1m)", value)
		}
		return fmt.Sprintf("--%s: invalid value %q", name, value)
	}
	if flag, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		return fmt.Sprintf("unknown flag %s", dashed(strings.TrimPrefix(flag, "-")))
	}
	// urfave/cli v2 refuses a flag given under both its names (-p 80
	// --port 81), whatever the flag: only one form may be repeated.
	if names, ok := strings.CutPrefix(msg, "Cannot use two forms of the same flag: "); ok {
		if a, b, ok := strings.Cut(names, " "); ok {
			return fmt.Sprintf("%s and %s are one flag: use one of the two names, repeated as needed", dashed(a), dashed(b))
		}
	}
	return msg
}

// dashed is a flag name as it is typed: -p, --port.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// exitStatus prints err, if any, as one line on stderr and returns the
// exit status it carries: an ExitCoder's own, 125 for anything else.
func exitStatus(err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	code := exitFailed
	var ec cli.ExitCoder
	if errors.As(err, &ec) {
		code = ec.ExitCode()
	}
	if msg := strings.TrimSpace(err.Error()); msg != "" {
		fmt.Fprintln(stderr, printable.String(firstLine(msg)))
	}
	return code
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// colorOn reports whether w is a terminal that wants colour: it must be a
// TTY and NO_COLOR (https://no-color.org) must be unset or empty.
func colorOn(w io.Writer) bool {
	if cw, ok := w.(*checkedWriter); ok {
		w = cw.w
	}
	f, ok := w.(*os.File)
	return ok && os.Getenv("NO_COLOR") == "" && isatty.IsTerminal(f.Fd())
}
