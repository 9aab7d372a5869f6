package main

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/tetherproc/tether/internal/signame"
	"github.com/tetherproc/tether/reclaim"
)

func reclaimCommand() *cli.Command {
	return &cli.Command{
		Name:  "reclaim",
		Usage: "find stranded tethered processes, verify each one, terminate it",
		Description: "By default: your stranded tethered processes. Each one is signalled through a pidfd\n" +
			"opened before its identity is checked again. With --port, every holder of the port is\n" +
			"named; --foreign also ends the ones tether did not start (the port's listeners, never\n" +
			"a client).\n" +
			"Exit status: 0 every selected process is gone (or none matched) and, with --port, every\n" +
			"port is free (with --dry-run: would be); 1 some survived or could not be signalled, or a\n" +
			"port is still held; 125 bad usage.\n\n" +
			"Examples:\n" +
			"   tether reclaim --dry-run\n" +
			"   tether reclaim --name web\n" +
			"   tether reclaim 8080\n" +
			"   tether reclaim --abandoned --dry-run",
		HideHelpCommand: true,
		OnUsageError:    usageError,
		Flags: append([]cli.Flag{
			&cli.BoolFlag{Name: "all", Usage: "include supervised processes, whose supervisor is alive"},
			&cli.StringFlag{Name: "signal", Value: "TERM", Usage: "the first `SIGNAL` sent"},
			&cli.DurationFlag{Name: "grace", Value: 5 * time.Second, Usage: "how long a process gets between the signal and KILL"},
			&cli.BoolFlag{Name: "dry-run", Usage: "signal nothing; print what would be done"},
			&cli.BoolFlag{Name: "foreign", Usage: "with --port: also end holders tether did not start (listeners of the port, never a client)"},
			&cli.DurationFlag{Name: "settle", Value: defaultSettle, Usage: "with --port: how long a freed port is watched for a process that takes it again (a restart loop, a process manager); 0 to not watch"},
		}, filterFlags()...),
		Action: runReclaim,
	}
}

// defaultSettle is how long a port freed by reclaim or run --port is
// watched for a process that takes it again: a shell loop or nodemon
// restarts a server within a few hundred milliseconds, pm2 and
// supervisord within one.
const defaultSettle = 500 * time.Millisecond

// reclaimReport is what tether reclaim reports: what the reclaim did,
// whether it was a dry run and, with --port, whether every port is free.
type reclaimReport struct {
	DryRun bool
	reclaim.Summary
	// Free, with --port: every port is free now (after a dry run: would
	// be), which is what exit status 0 then says.
	Free *bool
}

func runReclaim(c *cli.Context) error {
	if c.Bool("abandoned") {
		if c.NArg() > 0 {
			return usagef("tether reclaim: unexpected argument %q (--abandoned selects by stdin and stdout alone)", c.Args().First())
		}
		return runReclaimAbandoned(c)
	}
	f, err := filterFrom(c)
	if err != nil {
		return err
	}
	// "tether reclaim 8080", as kill-port is typed: the arguments are
	// ports, as --port's.
	args, err := parsePorts(c.Args().Slice())
	if err != nil {
		return usagef("tether reclaim: unexpected argument: %v (select with --name, --port, --run-id)", err)
	}
	f.Ports = mergePorts(f.Ports, args)
	if len(args) > 0 {
		if f.Proto, err = protoFrom(c, true); err != nil {
			return usagef("tether reclaim: %v", err)
		}
	}
	f.All = c.Bool("all")
	if f.Foreign = c.Bool("foreign"); f.Foreign && len(f.Ports) == 0 {
		return usagef("tether reclaim: --foreign goes with --port: it ends the holders of a port")
	}
	return reclaimWith(c, f, "tether reclaim")
}

// reclaimWith runs a reclaim of f with the flags of c (signal, grace,
// settle, dry run) and reports it as cmd.
func reclaimWith(c *cli.Context, f reclaim.Filter, cmd string) error {
	// A supervised run (--all) is ended through its tether, which ends
	// its whole tree as for TERM, renamed members included.
	act := reclaim.Action{Grace: c.Duration("grace"), DryRun: c.Bool("dry-run"), ViaSupervisor: f.All}
	var err error
	if act.Signal, err = parseSignal(c.String("signal")); err != nil {
		return usagef("%s: --signal: %v", cmd, err)
	}
	if act.Grace < 0 {
		return usagef("%s: --grace: negative duration %q", cmd, act.Grace)
	}
	if act.Settle = c.Duration("settle"); act.Settle < 0 {
		return usagef("%s: --settle: negative duration %q", cmd, act.Settle)
	}
	var done func()
	act.Progress, done = graceStatus(c)
	sum, err := reclaim.Reclaim(c.Context, f, act)
	done()
	if err != nil {
		return failf("%s: %v", cmd, err)
	}
	return reportReclaim(c, f, act, sum, cmd)
}

// reportReclaim writes the report of a reclaim and gives its exit
// status: 1 unless every selected process is gone and every port free.
func reportReclaim(c *cli.Context, f reclaim.Filter, act reclaim.Action, sum reclaim.Summary, cmd string) error {
	rep := newReclaimReport(f, act, sum)
	var err error
	if c.Bool("json") {
		err = writeJSON(c.App.Writer, reclaimJSON(rep))
	} else {
		err = writeReclaim(c.App.Writer, rep)
	}
	if err != nil {
		return failf("%s: write report: %v", cmd, err)
	}
	if !sum.AllGone() || !sum.PortsFree() {
		if ports := heldByForeign(sum); !f.Foreign && len(ports) > 0 {
			return cli.Exit(fmt.Sprintf("%s: a process tether did not start holds %s: tether free %s ends it (its listeners only)", cmd, portWord(ports), joinPorts(ports)), 1)
		}
		return cli.Exit("", 1)
	}
	return nil
}

// newReclaimReport is the report of a reclaim of f by act.
func newReclaimReport(f reclaim.Filter, act reclaim.Action, sum reclaim.Summary) reclaimReport {
	rep := reclaimReport{DryRun: act.DryRun, Summary: sum}
	if len(f.Ports) > 0 {
		free := sum.PortsFree()
		rep.Free = &free
	}
	return rep
}

// heldByForeign are the ports a foreign holder, left for want of
// --foreign, still holds.
func heldByForeign(sum reclaim.Summary) []uint16 {
	var ports []uint16
	for _, p := range sum.Ports {
		for _, l := range p.Left {
			if r, ok := sum.Result(l.PID); ok && r.Excluded == reclaim.ForeignHolder && r.Manager == nil {
				ports = append(ports, p.Port)
				break
			}
		}
	}
	return ports
}

func portWord(ports []uint16) string {
	if len(ports) == 1 {
		return "port " + joinPorts(ports)
	}
	return "ports " + joinPorts(ports)
}

func joinPorts(ports []uint16) string {
	s := make([]string, len(ports))
	for i, p := range ports {
		s[i] = strconv.Itoa(int(p))
	}
	return strings.Join(s, " ")
}

// mergePorts is a with those of b it lacks, in order.
func mergePorts(a, b []uint16) []uint16 {
	for _, p := range b {
		if !slices.Contains(a, p) {
			a = append(a, p)
		}
	}
	return a
}

func writeReclaim(w io.Writer, rep reclaimReport) error {
	var b strings.Builder
	selected, done, would := 0, 0, 0
	for _, r := range rep.Results {
		if r.Selected {
			selected++
		}
		if r.Outcome == reclaim.WouldSignal {
			would++
		}
		if r.Outcome == reclaim.Gone || r.Outcome == reclaim.AlreadyGone {
			done++
		}
		fmt.Fprintf(&b, "%d %s: %s", r.PID, displayName(r.Process), outcomeText(r))
		if !r.Tethered && r.UID != nil {
			// A holder tether did not start: whose it is and how old,
			// so that what would be ended is not taken on trust.
			fmt.Fprintf(&b, " (uid %d%s)", *r.UID, ageOf(r.Report))
		}
		if len(r.Ports) > 0 {
			fmt.Fprintf(&b, " [%s]", listenerText(r.Ports))
		}
		if cmd := withManager(r.Process, commandLine(r.Report)); cmd != "" {
			b.WriteString(" — " + cmd)
		}
		b.WriteByte('\n')
	}
	switch {
	case len(rep.Results) == 0 && len(rep.Ports) > 0 && rep.PortsFree():
		b.WriteString("nothing holds the port: nothing to reclaim\n")
	case len(rep.Results) == 0 && len(rep.Ports) > 0:
		b.WriteString("nothing to reclaim: no holder in sight\n")
	case len(rep.Results) == 0:
		b.WriteString("nothing to reclaim: no tethered process matched\n")
	case rep.DryRun:
		fmt.Fprintf(&b, "dry run: %d of %d would be signalled\n", would, len(rep.Results))
	default:
		fmt.Fprintf(&b, "reclaimed %d of %d selected (%d found)\n", done, selected, len(rep.Results))
	}
	for _, p := range rep.Ports {
		fmt.Fprintf(&b, "port %d: %s\n", p.Port, portText(rep.Summary, p, rep.DryRun))
	}
	// Reasons quote what processes hold: every line is made safe.
	lines := strings.SplitAfter(b.String(), "\n")
	for i, l := range lines {
		lines[i] = sanitize(strings.TrimSuffix(l, "\n"))
		if strings.HasSuffix(l, "\n") {
			lines[i] += "\n"
		}
	}
	_, err := io.WriteString(w, strings.Join(lines, ""))
	return err
}

func portText(sum reclaim.Summary, p reclaim.PortState, dryRun bool) string {
	switch {
	case p.Free:
		return "free"
	case len(p.Left) > 0:
		left := make([]string, len(p.Left))
		for i, l := range p.Left {
			left[i] = leftText(sum, p, l)
		}
		return "held by " + strings.Join(left, "; ")
	case dryRun:
		return "held by " + joinInts(p.Holders) + "; would be freed"
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
		return "skipped, " + whyText(r, reclaimHints)
	case reclaim.WouldSignal:
		if m := r.Manager; m != nil && m.Kind == reclaim.ByContainer {
			return "would be stopped through " + m.Engine
		}
		if !r.Tethered {
			return "would be signalled" // the name in front says what it is
		}
		return "would be signalled (" + string(r.Verdict) + ")"
	case reclaim.Gone:
		return sentText(r.Signals) + ": gone"
	case reclaim.AlreadyGone:
		return "gone before it was signalled"
	case reclaim.Changed:
		return "not signalled: " + whyText(r, reclaimHints)
	default:
		s := string(r.Outcome)
		if len(r.Signals) > 0 {
			s = sentText(r.Signals) + ": " + s
		}
		return s + ": " + whyText(r, reclaimHints)
	}
}

// leftText is a holder the reclaim left on port p, and why, in the words
// of its Result, with reclaim's flags.
func leftText(sum reclaim.Summary, p reclaim.PortState, l reclaim.LeftHolder) string {
	switch l.Why {
	case reclaim.LeftTookAgain:
		for _, r := range p.Again {
			if r.PID == l.PID {
				return retakerText(r)
			}
		}
	case reclaim.LeftOutOfSight:
		if l.UID != nil {
			return fmt.Sprintf("a process of uid %d that tether cannot see", *l.UID)
		}
		return "a process that tether cannot see"
	case reclaim.LeftNotEnded, reclaim.LeftNotSelected:
		if r, ok := sum.Result(l.PID); ok {
			if l.Why == reclaim.LeftNotEnded {
				return fmt.Sprintf("PID %d: %s %s", l.PID, r.Outcome, whyText(r, reclaimHints))
			}
			return fmt.Sprintf("PID %d: %s", l.PID, whyText(r, reclaimHints))
		}
	}
	return fmt.Sprintf("PID %d: bound the port while tether looked", l.PID)
}

// sentText is what a reclaim sent a process, in order.
func sentText(sent []reclaim.Sent) string {
	s := make([]string, len(sent))
	for i, x := range sent {
		s[i] = stepText(x)
	}
	return strings.Join(s, ", then ")
}

// stepText is one step of a reclaim: "TERM", "KILL (to its supervisor)",
// "stopped through Docker".
func stepText(s reclaim.Sent) string {
	switch {
	case s.Engine != "":
		return "stopped through " + s.Engine
	case s.ToSupervisor:
		return signame.Name(s.Signal) + " (to its supervisor)"
	}
	return signame.Name(s.Signal)
}
