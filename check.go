package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/tetherproc/tether/internal/engines"
	"github.com/tetherproc/tether/probe"
	"github.com/tetherproc/tether/reclaim"
)

func checkCommand() *cli.Command {
	return &cli.Command{
		Name:      "check",
		Usage:     "tell whether PID is a tethered process, and whether it is supervised or stranded",
		ArgsUsage: "PID",
		Description: "Exit status: 0 tethered (supervised or stranded), 1 foreign, 2 zombie, 3 gone,\n" +
			"4 unverifiable (alive, but its environment cannot be read), 125 bad usage.\n\n" +
			"Examples:\n" +
			"   tether check 4242\n" +
			"   tether check --name web --json 4242",
		HideHelpCommand: true,
		OnUsageError:    checkUsageError,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "name", Usage: "require the exact name `NAME`"},
			&cli.BoolFlag{Name: "json", Usage: "print the report as one JSON object"},
		}, markerFlags()...),
		Action: runCheck,
	}
}

// checkUsageError names a negative PID as a bad PID: the flag parser
// sees "-1" as an unknown flag.
func checkUsageError(c *cli.Context, err error, sub bool) error {
	if arg, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: "); ok {
		if _, perr := strconv.Atoi(arg); perr == nil {
			_, perr = parsePID(arg)
			return usagef("tether check: %v", perr)
		}
	}
	return usageError(c, err, sub)
}

func runCheck(c *cli.Context) error {
	switch c.NArg() {
	case 0:
		return usagef("tether check: missing PID (usage: tether check [options] PID)")
	case 1:
	default:
		if rest := c.Args().Tail(); strings.HasPrefix(rest[0], "-") {
			return usagef("tether check: flags go before the PID: tether check %s %s", strings.Join(rest, " "), c.Args().First())
		}
		return usagef("tether check: one PID expected, got %d arguments: %s", c.NArg(), strings.Join(c.Args().Slice(), " "))
	}
	pid, err := parsePID(c.Args().First())
	if err != nil {
		return usagef("tether check: %v", err)
	}
	m, err := markersFrom(c)
	if err != nil {
		return err
	}
	q := probe.Query{Markers: m}
	if q.Name, err = nameFrom(c); err != nil {
		return err
	}
	r, err := probe.Check(pid, q)
	if err != nil {
		return usagef("tether check: %v", err)
	}
	// Who runs a process tether did not start: a container's engine,
	// a service manager (the engine is asked only for a container's).
	var managed *reclaim.Manager
	if r.Verdict == probe.Foreign || r.Verdict == probe.Unverifiable {
		managed = engines.Of(pid)
	}
	if c.Bool("json") {
		err = writeJSON(c.App.Writer, checkJSON(r, managed))
	} else {
		line := formatReport(r, colorOn(c.App.Writer))
		if m := managedText(managed); m != "" {
			line += " (run by " + m + ")"
		}
		_, err = fmt.Fprintln(c.App.Writer, line)
	}
	if err != nil {
		return failf("tether check: write report: %v", err)
	}
	return cli.Exit("", checkStatus(r.Verdict))
}

// checkStatus is tether check's exit status for a verdict.
func checkStatus(v probe.Verdict) int {
	switch v {
	case probe.Supervised, probe.Stranded:
		return 0
	case probe.Foreign:
		return 1
	case probe.Zombie:
		return 2
	case probe.Gone:
		return 3
	default:
		return 4
	}
}

// verdictColors are ANSI SGR codes per verdict, for a terminal only.
var verdictColors = map[probe.Verdict]string{
	probe.Supervised:   "32", // green
	probe.Stranded:     "33", // yellow
	probe.Foreign:      "36", // cyan
	probe.Zombie:       "35", // magenta
	probe.Gone:         "2",  // dim
	probe.Unverifiable: "31", // red
}

// formatReport renders a report as one line:
//
//	4242 tethered, supervised: name=web run_id=… supervisor=4200 (alive) — ./server --port 8080
func formatReport(r probe.Report, color bool) string {
	var b strings.Builder
	b.WriteString(strconv.Itoa(r.PID))
	b.WriteByte(' ')
	verdict := string(r.Verdict)
	if r.Tethered {
		verdict = "tethered, " + verdict
	}
	if color {
		verdict = "\x1b[" + verdictColors[r.Verdict] + "m" + verdict + "\x1b[0m"
	}
	b.WriteString(verdict)
	if why := reasonText(r); why != "" {
		b.WriteString(": ")
		b.WriteString(sanitize(why))
	}
	var attrs []string
	if r.Name != "" {
		attrs = append(attrs, "name="+sanitize(r.Name))
	}
	if r.RunID != "" {
		attrs = append(attrs, "run_id="+sanitize(r.RunID))
	}
	if s := r.Supervisor; s != nil {
		attrs = append(attrs, "supervisor="+supervisorText(s))
	}
	if c := r.Container; c != nil {
		if c.Kind == probe.ByRecord {
			attrs = append(attrs, "by its run's record "+sanitize(c.RunID))
		} else {
			attrs = append(attrs, "container="+sanitize(tieText(*c)))
		}
	}
	if r.Verdict != probe.Gone && r.PPID > 0 {
		attrs = append(attrs, "ppid="+strconv.Itoa(r.PPID))
	}
	if len(attrs) > 0 {
		b.WriteString(" [")
		b.WriteString(strings.Join(attrs, " "))
		b.WriteString("]")
	}
	if cmd := commandLine(r); cmd != "" {
		b.WriteString(" — ")
		b.WriteString(cmd)
	}
	return b.String()
}
