package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/tetherproc/tether/reclaim"
)

func reclaimCommand() *cli.Command {
	return &cli.Command{
		Name:  "reclaim",
		Usage: "find stranded tethered processes, verify each one, terminate it",
		Description: "By default: your stranded tethered processes. Each one is signalled through a pidfd\n" +
			"opened before its identity is checked again.\n" +
			"Exit status: 0 every selected process is gone (or none matched), 1 some survived or\n" +
			"could not be signalled, 125 bad usage.",
		HideHelpCommand: true,
		OnUsageError:    usageError,
		Flags: append([]cli.Flag{
			&cli.BoolFlag{Name: "all", Usage: "include supervised processes, whose supervisor is alive"},
			&cli.StringFlag{Name: "signal", Value: "TERM", Usage: "the first `SIGNAL` sent"},
			&cli.DurationFlag{Name: "grace", Value: 5 * time.Second, Usage: "how long a process gets between the signal and KILL"},
			&cli.BoolFlag{Name: "dry-run", Usage: "signal nothing; print what would be done"},
		}, filterFlags()...),
		Action: runReclaim,
	}
}

// reclaimReport is tether reclaim --json.
type reclaimReport struct {
	DryRun bool `json:"dry_run"`
	reclaim.Summary
}

func runReclaim(c *cli.Context) error {
	if c.NArg() > 0 {
		return usagef("tether reclaim: unexpected argument %q (select with --name, --port, --run-id)", c.Args().First())
	}
	f, err := filterFrom(c)
	if err != nil {
		return err
	}
	f.All = c.Bool("all")
	act := reclaim.Action{Grace: c.Duration("grace"), DryRun: c.Bool("dry-run")}
	if act.Signal, err = parseSignal(c.String("signal")); err != nil {
		return usagef("tether reclaim: --signal: %v", err)
	}
	if act.Grace < 0 {
		return usagef("tether reclaim: --grace: negative duration %q", act.Grace)
	}
	sum, err := reclaim.Reclaim(f, act)
	if err != nil {
		return failf("tether reclaim: %v", err)
	}
	rep := reclaimReport{DryRun: act.DryRun, Summary: sum}
	if c.Bool("json") {
		err = writeJSON(c.App.Writer, rep)
	} else {
		err = writeReclaim(c.App.Writer, rep)
	}
	if err != nil {
		return failf("tether reclaim: write report: %v", err)
	}
	if !sum.AllGone() {
		return cli.Exit("", 1)
	}
	return nil
}

func writeReclaim(w io.Writer, rep reclaimReport) error {
	var b strings.Builder
	selected, done := 0, 0
	for _, r := range rep.Results {
		if r.Selected {
			selected++
		}
		if r.Outcome == reclaim.Gone || r.Outcome == reclaim.AlreadyGone {
			done++
		}
		fmt.Fprintf(&b, "%d %s: %s", r.PID, displayName(r.Process), outcomeText(r))
		if len(r.Ports) > 0 {
			fmt.Fprintf(&b, " [%s]", listenerText(r.Ports))
		}
		if cmd := commandLine(r.Report); cmd != "" {
			b.WriteString(" — " + cmd)
		}
		b.WriteByte('\n')
	}
	switch {
	case len(rep.Results) == 0:
		b.WriteString("nothing to reclaim: no tethered process matched\n")
	case rep.DryRun:
		fmt.Fprintf(&b, "dry run: %d of %d would be signalled\n", selected, len(rep.Results))
	default:
		fmt.Fprintf(&b, "reclaimed %d of %d selected (%d found)\n", done, selected, len(rep.Results))
	}
	for _, p := range rep.Ports {
		fmt.Fprintf(&b, "port %d: %s\n", p.Port, portText(p))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func portText(p reclaim.PortState) string {
	if p.Free {
		return "free"
	}
	var by []string
	if len(p.Holders) > 0 {
		by = append(by, joinInts(p.Holders))
	}
	if len(p.Hidden) > 0 {
		by = append(by, "a process of uid "+joinInts(p.Hidden)+" that tether cannot see")
	}
	return "held by " + strings.Join(by, " and ")
}

func outcomeText(r reclaim.Result) string {
	switch r.Outcome {
	case reclaim.Skipped:
		return "skipped, " + r.Why
	case reclaim.WouldSignal:
		return "would be signalled (" + string(r.Verdict) + ")"
	case reclaim.Gone:
		return strings.Join(r.Signals, ", then ") + ": gone"
	case reclaim.AlreadyGone:
		return "gone before it was signalled"
	case reclaim.Changed:
		return "not signalled: " + r.Why
	default:
		s := string(r.Outcome)
		if len(r.Signals) > 0 {
			s = strings.Join(r.Signals, ", then ") + ": " + s
		}
		return s + ": " + r.Why
	}
}
