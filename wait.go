package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/tetherproc/tether/reclaim"
)

// Exit statuses of tether wait besides 0 (ready) and 125 (bad usage).
const (
	exitTimedOut = 1
	exitPIDGone  = 3
)

func waitCommand() *cli.Command {
	return &cli.Command{
		Name:      "wait",
		Usage:     "wait until every --port has a listener (a server is ready), or its --pid is gone",
		ArgsUsage: " ",
		Description: "Exit status: 0 every port has a listener; 1 --timeout ran out; 3 --pid is gone;\n" +
			"125 bad usage. Ctrl-C ends it as any command (130).",
		HideHelpCommand: true,
		OnUsageError:    usageError,
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "port", Usage: "wait for a listener on `PORT` (TCP listening or UDP bound; repeatable)"},
			&cli.StringFlag{Name: "pid", Usage: "stop at once, exit 3, when process `PID` (the server, or its tether run) is gone"},
			&cli.BoolFlag{Name: "owned", Usage: "count only a listener held by --pid or its descendants"},
			&cli.DurationFlag{Name: "timeout", Value: 30 * time.Second, Usage: "give up after `DURATION`, exit 1; 0 checks once"},
			&cli.DurationFlag{Name: "interval", Value: 50 * time.Millisecond, Usage: "pause `DURATION` before the second check, growing by half to 250ms"},
			&cli.BoolFlag{Name: "json", Usage: "print JSON"},
		},
		Action: runWait,
	}
}

// waitReport is tether wait --json.
type waitReport struct {
	Ready     bool                `json:"ready"`
	PIDGone   bool                `json:"pid_gone,omitempty"`
	TimedOut  bool                `json:"timed_out,omitempty"`
	ElapsedMS int64               `json:"elapsed_ms"`
	Ports     []reclaim.Readiness `json:"ports"`
}

// waitSpecFrom is what tether wait was asked, each flag checked here so
// that a bad value is named by its flag.
func waitSpecFrom(c *cli.Context) (reclaim.WaitSpec, error) {
	var s reclaim.WaitSpec
	if c.NArg() > 0 {
		return s, usagef("tether wait: unexpected argument %q (wait for ports with --port)", c.Args().First())
	}
	var err error
	if s.Ports, err = parsePorts(c.StringSlice("port")); err != nil {
		return s, usagef("tether wait: --port: %v", err)
	}
	if len(s.Ports) == 0 {
		return s, usagef("tether wait: nothing to wait for: give --port")
	}
	if c.IsSet("pid") {
		if s.PID, err = parsePID(c.String("pid")); err != nil {
			return s, usagef("tether wait: --pid: %v", err)
		}
	}
	s.Owned = c.Bool("owned")
	if s.Owned && s.PID == 0 {
		return s, usagef("tether wait: --owned needs --pid, the process whose listeners count")
	}
	s.Timeout, s.Interval = c.Duration("timeout"), c.Duration("interval")
	if s.Timeout < 0 {
		return s, usagef("tether wait: --timeout: negative duration %q", s.Timeout)
	}
	if s.Interval <= 0 {
		return s, usagef("tether wait: --interval: %q is not a positive duration", s.Interval)
	}
	return s, nil
}

func runWait(c *cli.Context) error {
	s, err := waitSpecFrom(c)
	if err != nil {
		return err
	}
	start := time.Now()
	ports, ready, gone, err := s.Wait()
	if err != nil {
		return failf("tether wait: %v", err)
	}
	rep := waitReport{Ready: ready, PIDGone: gone, TimedOut: !ready && !gone, ElapsedMS: time.Since(start).Milliseconds(), Ports: ports}
	if c.Bool("json") {
		err = writeJSON(c.App.Writer, rep)
	} else if ready {
		err = writeWait(c.App.Writer, rep.Ports)
	}
	if err != nil {
		return failf("tether wait: write: %v", err)
	}
	switch {
	case ready:
		return nil
	case gone:
		return cli.Exit(fmt.Sprintf("tether wait: PID %d is gone; %s", s.PID, missing(rep.Ports)), exitPIDGone)
	}
	return cli.Exit(fmt.Sprintf("tether wait: timed out after %v; %s", s.Timeout, missing(rep.Ports)), exitTimedOut)
}

// writeWait prints each port and its holders: what is ready, and whose.
func writeWait(w io.Writer, ports []reclaim.Readiness) error {
	for _, p := range ports {
		var hs []string
		for _, h := range p.Holders {
			who := "PID " + strconv.Itoa(h.PID)
			if h.Tethered {
				who += " (" + sanitize(h.Name) + ", " + string(h.Verdict) + ")"
			}
			hs = append(hs, who+" — "+holderCommand(h))
		}
		held := strings.Join(hs, "; ")
		if held == "" {
			held = "a process out of sight"
		}
		if _, err := fmt.Fprintf(w, "port %d: %s, %s\n", p.Port, listenerText(p.Listeners), held); err != nil {
			return err
		}
	}
	return nil
}

// missing names the ports without a listener.
func missing(ports []reclaim.Readiness) string {
	var m []string
	for _, p := range ports {
		if !p.Ready {
			m = append(m, strconv.Itoa(int(p.Port)))
		}
	}
	switch len(m) {
	case 0:
		return "every port has a listener"
	case 1:
		return "no listener on port " + m[0]
	}
	return "no listener on ports " + strings.Join(m, ", ")
}
