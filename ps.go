package main

import (
	"fmt"
	"io"
	"os"
	"os/user"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/tetherproc/tether/reclaim"
)

func psCommand() *cli.Command {
	return &cli.Command{
		Name:  "ps",
		Usage: "list tethered processes: supervised and stranded",
		Description: "Examples:\n" +
			"   tether ps\n" +
			"   tether ps --port 8080\n" +
			"   tether ps --abandoned",
		HideHelpCommand: true,
		OnUsageError:    usageError,
		Flags:           filterFlags(),
		Action:          runPS,
	}
}

// psEntry is a process listed, and its age.
type psEntry struct {
	reclaim.Process
	AgeSeconds int64
}

func runPS(c *cli.Context) error {
	if c.NArg() > 0 {
		return usagef("tether ps: unexpected argument %q (select with --name, --port, --run-id)", c.Args().First())
	}
	if c.Bool("abandoned") {
		return runPSAbandoned(c)
	}
	f, err := filterFrom(c)
	if err != nil {
		return err
	}
	l, err := reclaim.List(f)
	if err != nil {
		return failf("tether ps: %v", err)
	}
	now := time.Now()
	entries := make([]psEntry, len(l.Processes))
	for i, p := range l.Processes {
		entries[i] = psEntry{Process: p}
		if at, err := p.Started(); err == nil {
			entries[i].AgeSeconds = int64(now.Sub(at) / time.Second)
		}
	}
	others := make([]psOther, len(l.Others))
	for i, o := range l.Others {
		others[i] = psOther{OtherHolder: o, Why: otherText(o)}
	}
	if c.Bool("json") {
		err = writeJSON(c.App.Writer, psJSON(entries, others))
	} else {
		err = writePS(c.App.Writer, entries, others)
	}
	if err != nil {
		return failf("tether ps: write: %v", err)
	}
	return nil
}

// psOther is a holder of a port asked about that the listing leaves
// out, and the words that say who it is and what would show it.
type psOther struct {
	reclaim.OtherHolder
	Why string
}

// otherText says who holds a port that the listing leaves out, and
// what would show it: "held by uid 1001 (ci): --any-user to see it".
func otherText(o reclaim.OtherHolder) string {
	who := "uid " + strconv.Itoa(o.UID)
	if u, err := user.LookupId(strconv.Itoa(o.UID)); err == nil {
		who += " (" + sanitize(u.Username) + ")"
	}
	if o.Excluded == reclaim.OutOfSight {
		if os.Geteuid() == 0 {
			return "held by a process of " + who + ", out of sight of this /proc"
		}
		return "held by a process of " + who + ", out of sight: run as root to see it"
	}
	return fmt.Sprintf("held by PID %d of %s: --any-user to see it", o.PID, who)
}

func writePS(w io.Writer, entries []psEntry, others []psOther) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "PID\tPPID\tPGID\tNAME\tSTATE\tSUPERVISOR\tAGE\tPORTS\tCOMMAND")
	for _, e := range entries {
		sup := "-"
		if s := e.Supervisor; s != nil {
			sup = supervisorText(s)
		}
		ports := portsText(e.Ports)
		fmt.Fprintf(tw, "%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\n", e.PID, e.PPID, e.PGID, displayName(e.Process),
			e.Verdict, sup, age(time.Duration(e.AgeSeconds)*time.Second), ports, withManager(e.Process, commandLine(e.Report)))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, o := range others {
		if _, err := fmt.Fprintf(w, "port %d: %s\n", o.Port, o.Why); err != nil {
			return err
		}
	}
	return nil
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
