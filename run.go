package main

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/tetherproc/tether/probe"
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
		}, markerFlags()...),
		Action: runRun,
	}
}

func runRun(c *cli.Context) error {
	args := c.Args().Slice()
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
		return cli.Exit("tether run: "+strings.TrimPrefix(se.Error(), "tether run: "), se.Status)
	}
	return cli.Exit(fmt.Sprintf("tether run: %v", err), exitUsage)
}
