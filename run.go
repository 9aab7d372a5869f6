package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/tetherproc/tether/probe"
	"github.com/tetherproc/tether/reclaim"
	"github.com/tetherproc/tether/spawn"
)

func runCommand() *cli.Command {
	return &cli.Command{
		Name:      "run",
		Usage:     "run COMMAND tied to tether's life, stamped, in its own process group",
		ArgsUsage: "-- COMMAND [ARG...]",
		Description: "Exit status: COMMAND's own; 128+N when it died of signal N; 125 tether failed\n" +
			"(bad usage, spawn failure); 126 COMMAND not executable; 127 COMMAND not found.",
		// "tether run -- h" runs h: no help subcommand here.
		HideHelpCommand: true,
		OnUsageError:    usageError,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "name", Usage: "stamp the name `NAME` (default: the command's base name)"},
			&cli.StringFlag{Name: "signal", Value: "TERM", Usage: "the parent-death `SIGNAL` the command gets when tether dies"},
			&cli.DurationFlag{Name: "grace", Value: 5 * time.Second, Usage: "how long the tree gets between TERM and KILL at cleanup"},
			&cli.BoolFlag{Name: "outlive-parent", Usage: "keep running when tether's own parent (the shell, make) dies"},
			&cli.BoolFlag{Name: "exec", Usage: "no supervisor: arm the parent-death signal on tether and exec COMMAND in place"},
			&cli.StringSliceFlag{Name: "port", Usage: "first free `PORT`: reclaim a stranded tethered holder, refuse any other (repeatable)"},
		}, markerFlags()...),
		Action: runRun,
	}
}

func runRun(c *cli.Context) error {
	args := c.Args().Slice()
	// urfave/cli turns shell completion off after "--" and hands the
	// completion flag over as an argument: pressing TAB must never start
	// the command.
	if n := len(args); n > 0 && args[n-1] == "--generate-bash-completion" {
		return nil
	}
	if len(args) == 0 {
		return usagef("tether run: no command (usage: tether run [options] -- COMMAND [ARG...])")
	}
	if args[0] == "" {
		return usagef("tether run: empty command name %q", args[0])
	}
	m, err := markersFrom(c)
	if err != nil {
		return err
	}
	opts := spawn.Options{Markers: m, Name: c.String("name")}
	if c.IsSet("name") {
		if err := probe.ValidateName(opts.Name); err != nil {
			return usagef("tether run: --name: %v", err)
		}
	}
	if opts.Signal, err = parseSignal(c.String("signal")); err != nil {
		return usagef("tether run: --signal: %v", err)
	}
	grace := c.Duration("grace")
	if grace < 0 {
		return usagef("tether run: --grace: negative duration %q", grace)
	}
	ports, err := parsePorts(c.StringSlice("port"))
	if err != nil {
		return usagef("tether run: --port: %v", err)
	}
	if err := freePorts(ports, m, grace); err != nil {
		return err
	}
	if c.Bool("exec") {
		return startError(spawn.Exec(opts, args, c.Bool("outlive-parent")))
	}
	status, err := spawn.Supervise(spawn.Config{
		Options:       opts,
		Args:          args,
		Grace:         grace,
		OutliveParent: c.Bool("outlive-parent"),
		WatchdogPath:  "/proc/self/exe",
	})
	if err != nil {
		return startError(err)
	}
	return cli.Exit("", status)
}

// startError gives a failure to start the command its exit status: 127
// not found, 126 not executable, 125 tether's own failure.
func startError(err error) error {
	var se *spawn.StartError
	if errors.As(err, &se) {
		return cli.Exit("tether run: "+se.Error(), se.Status)
	}
	return cli.Exit(fmt.Sprintf("tether run: %v", err), exitUsage)
}

// freePorts makes sure the ports are free before the command starts, as
// the original design does: a holder that is tethered and stranded is
// reclaimed; any other holder (supervised by a live tether, foreign,
// unverifiable, another user's) is a refusal, and nothing is signalled.
func freePorts(ports []uint16, m probe.Markers, grace time.Duration) error {
	if len(ports) == 0 {
		return nil
	}
	opts := reclaim.Options{Markers: m, Ports: ports}
	found, states, err := reclaim.FindWithPorts(opts)
	if err != nil {
		return cli.Exit("tether run: --port: "+err.Error(), exitUsage)
	}
	for _, p := range found {
		if ok, why := opts.Selected(p); !ok {
			return usagef("tether run: port %s is held by PID %d (%s): %s; nothing was signalled",
				portsOf(p), p.PID, holderCommand(p), why)
		}
	}
	// A socket on the port whose holder is out of sight (another user's
	// process) cannot be verified: refuse, fail closed.
	for _, st := range states {
		if len(st.Hidden) > 0 {
			return usagef("tether run: port %d is held by a process of uid %s that tether cannot see; nothing was signalled",
				st.Port, joinInts(st.Hidden))
		}
	}
	for _, r := range reclaim.Terminate(found, opts, reclaim.Action{Grace: grace}) {
		if r.Outcome != reclaim.Exited && r.Outcome != reclaim.AlreadyGone {
			return usagef("tether run: port %s: stranded holder PID %d (%s) not reclaimed: %s %s",
				portsOf(r.Process), r.PID, holderCommand(r.Process), r.Outcome, r.Why)
		}
	}
	return nil
}

func portsOf(p reclaim.Process) string {
	var s []string
	for _, l := range p.Ports {
		s = append(s, strconv.Itoa(int(l.Port)))
	}
	return strings.Join(s, ",")
}

func holderCommand(p reclaim.Process) string {
	if cmd := commandLine(p.Report); cmd != "" {
		return cmd
	}
	return "command unknown"
}
