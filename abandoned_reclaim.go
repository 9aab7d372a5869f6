package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/tetherproc/tether/abandoned"
	"github.com/urfave/cli/v2"
)

// runPSAbandoned is tether ps --abandoned.
func runPSAbandoned(c *cli.Context) error {
	anyUser, err := abandonedFrom(c)
	if err != nil {
		return err
	}
	trees, err := findAbandoned(c, anyUser)
	if err != nil {
		return err
	}
	now := time.Now()
	if c.Bool("json") {
		err = writeJSON(c.App.Writer, abandonedRows(trees, now))
	} else {
		err = writeAbandoned(c.App.Writer, trees, now)
	}
	if err != nil {
		return failf("tether ps: write: %v", err)
	}
	return nil
}

// abandonedEndJSON is one tree of tether reclaim --abandoned --json.
type abandonedEndJSON struct {
	abandonedJSON
	// Outcome: would-end (dry run), ended, gone (before the signal),
	// left-alone (no longer abandoned, or no longer known to be),
	// failed (a signal could not be sent), survived.
	Outcome string `json:"outcome"`
	Why     string `json:"why,omitempty"`
	Left    []int  `json:"left,omitempty"`
}

// runReclaimAbandoned is tether reclaim --abandoned: exit 0 when every
// tree still abandoned when looked at again is gone, 1 when a member
// survived.
func runReclaimAbandoned(c *cli.Context) error {
	anyUser, err := abandonedFrom(c)
	if err != nil {
		return err
	}
	sig, err := parseSignal(c.String("signal"))
	if err != nil {
		return usagef("tether reclaim: --signal: %v", err)
	}
	grace := c.Duration("grace")
	if grace < 0 {
		return usagef("tether reclaim: --grace: negative duration %q", grace)
	}
	trees, err := findAbandoned(c, anyUser)
	if err != nil {
		return err
	}
	now, dry := time.Now(), c.Bool("dry-run")
	var rows []abandonedEndJSON
	if dry {
		for _, t := range trees {
			rows = append(rows, wouldEnd(t, now))
		}
	} else {
		for _, e := range abandoned.End(c.Context, trees, abandoned.Action{Signal: sig, Grace: grace, AnyUser: anyUser}) {
			rows = append(rows, endRow(e, now))
		}
	}
	if c.Bool("json") {
		err = writeJSON(c.App.Writer, abandonedEndsJSON(dry, rows))
	} else {
		err = writeAbandonedEnds(c.App.Writer, rows, dry)
	}
	if err != nil {
		return failf("tether reclaim: write report: %v", err)
	}
	for _, r := range rows {
		if r.Outcome == "survived" || r.Outcome == "failed" {
			return cli.Exit("", 1)
		}
	}
	return nil
}

// abandonedRows is what tether ps --abandoned --json prints: a row a
// tree.
func abandonedRows(trees []abandoned.Tree, now time.Time) []abandonedJSON {
	rows := make([]abandonedJSON, len(trees))
	for i, t := range trees {
		rows[i] = abandonedToJSON(t, now)
	}
	return rows
}

// abandonedEndsJSON is what tether reclaim --abandoned --json prints.
func abandonedEndsJSON(dry bool, rows []abandonedEndJSON) any {
	return struct {
		DryRun bool               `json:"dry_run"`
		Trees  []abandonedEndJSON `json:"trees"`
	}{dry, append([]abandonedEndJSON{}, rows...)}
}

// wouldEnd is the row of a tree a dry run would end.
func wouldEnd(t abandoned.Tree, now time.Time) abandonedEndJSON {
	return abandonedEndJSON{abandonedJSON: abandonedToJSON(t, now), Outcome: "would-end"}
}

func endRow(e abandoned.Ended, now time.Time) abandonedEndJSON {
	r := abandonedEndJSON{abandonedJSON: abandonedToJSON(e.Tree, now)}
	switch {
	case e.NoLonger != 0:
		r.Outcome, r.Why = "left-alone", leftOutText(e.NoLonger)
	case e.Gone:
		r.Outcome = "gone"
	case e.Ended:
		r.Outcome = "ended"
	case e.Err != nil:
		r.Outcome, r.Why = "failed", "could not be signalled: "+e.Err.Error()
		for _, m := range e.Left {
			r.Left = append(r.Left, m.PID)
		}
	default:
		r.Outcome, r.Why = "survived", "still alive after SIGKILL"
		for _, m := range e.Left {
			r.Left = append(r.Left, m.PID)
		}
	}
	return r
}

func writeAbandonedEnds(w io.Writer, rows []abandonedEndJSON, dry bool) error {
	var b strings.Builder
	ended := 0
	for _, r := range rows {
		var names []string
		for _, m := range r.Members {
			names = append(names, shortComm(m.Comm))
		}
		fmt.Fprintf(&b, "%d %s (%d processes, %s", r.PID, strings.Join(names, " > "), len(r.Members), memory(r.ResidentBytes))
		if len(r.Ports) > 0 {
			fmt.Fprintf(&b, ", %s", rowPortsText(r.Ports))
		}
		b.WriteString("): ")
		switch r.Outcome {
		case "would-end":
			b.WriteString("would be ended")
		case "ended", "gone":
			ended++
			b.WriteString(map[string]string{"ended": "ended", "gone": "gone before it was signalled"}[r.Outcome])
		case "left-alone":
			b.WriteString("left alone: " + r.Why)
		case "failed":
			fmt.Fprintf(&b, "%s: %s left", r.Why, joinInts(r.Left))
		default:
			fmt.Fprintf(&b, "survived: %s still alive after SIGKILL", joinInts(r.Left))
		}
		if len(r.Members) > 0 && len(r.Members[0].Command) > 0 {
			b.WriteString(" — " + commandText(r.Members[0].Command))
		}
		b.WriteByte('\n')
	}
	switch {
	case len(rows) == 0:
		b.WriteString("nothing to reclaim: no abandoned stdio tree\n")
	case dry:
		fmt.Fprintf(&b, "dry run: %d abandoned stdio trees would be ended\n", len(rows))
	default:
		fmt.Fprintf(&b, "reclaimed %d of %d abandoned stdio trees\n", ended, len(rows))
	}
	_, err := io.WriteString(w, b.String())
	return err
}
