package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/tetherproc/tether/reclaim"
)

func psCommand() *cli.Command {
	return &cli.Command{
		Name:            "ps",
		Usage:           "list tethered processes: supervised and stranded",
		HideHelpCommand: true,
		OnUsageError:    usageError,
		Flags:           filterFlags(),
		Action:          runPS,
	}
}

// psEntry is one row of tether ps --json.
type psEntry struct {
	reclaim.Process
	AgeSeconds int64 `json:"age_seconds"`
}

func runPS(c *cli.Context) error {
	if c.NArg() > 0 {
		return usagef("tether ps: unexpected argument %q (select with --name, --port, --run-id)", c.Args().First())
	}
	f, err := filterFrom(c)
	if err != nil {
		return err
	}
	procs, err := reclaim.List(f)
	if err != nil {
		return failf("tether ps: %v", err)
	}
	now := time.Now()
	entries := make([]psEntry, len(procs))
	for i, p := range procs {
		entries[i] = psEntry{Process: p}
		if at, err := p.Started(); err == nil {
			entries[i].AgeSeconds = int64(now.Sub(at) / time.Second)
		}
	}
	if c.Bool("json") {
		err = writeJSON(c.App.Writer, entries)
	} else {
		err = writePS(c.App.Writer, entries)
	}
	if err != nil {
		return failf("tether ps: write: %v", err)
	}
	return nil
}

func writePS(w io.Writer, entries []psEntry) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "PID\tPPID\tPGID\tNAME\tSTATE\tSUPERVISOR\tAGE\tPORTS\tCOMMAND")
	for _, e := range entries {
		sup := "-"
		if s := e.Supervisor; s != nil {
			sup = supervisorText(s)
		}
		ports := "-"
		if len(e.Ports) > 0 {
			var ps []string
			for _, l := range e.Ports {
				ps = append(ps, l.Proto+"/"+strconv.Itoa(int(l.Port)))
			}
			ports = strings.Join(ps, ",")
		}
		fmt.Fprintf(tw, "%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\n", e.PID, e.PPID, e.PGID, displayName(e.Process),
			e.Verdict, sup, age(time.Duration(e.AgeSeconds)*time.Second), ports, withManager(e.Process, commandLine(e.Report)))
	}
	return tw.Flush()
}

// age is short, as ps shows it: 42s, 17m, 3h, 5d.
func age(d time.Duration) string {
	switch {
	case d < time.Minute:
		return strconv.Itoa(int(d/time.Second)) + "s"
	case d < time.Hour:
		return strconv.Itoa(int(d/time.Minute)) + "m"
	case d < 48*time.Hour:
		return strconv.Itoa(int(d/time.Hour)) + "h"
	}
	return strconv.Itoa(int(d/(24*time.Hour))) + "d"
}
