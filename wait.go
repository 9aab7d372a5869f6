package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/tetherproc/tether/internal/readiness"
)

// Exit statuses of tether wait besides 0 (ready) and 125 (bad usage).
const (
	exitTimedOut = 1
	exitPIDGone  = 3
)

func waitCommand() *cli.Command {
	return &cli.Command{
		Name:      "wait",
		Usage:     "wait until every --port has a listener (a server is ready; --http: it answers; --free: none left), or its --pid is gone",
		ArgsUsage: " ",
		Description: "Exit status: 0 every port has a listener (--http: one that answered below --status;\n" +
			"--free: none left); 1 --timeout ran out; 3 --pid is gone; 125 bad usage. Ctrl-C ends it\n" +
			"as any command (130).",
		HideHelpCommand: true,
		OnUsageError:    usageError,
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "port", Aliases: []string{"p"}, Usage: "wait for a listener on `PORT` (TCP listening or UDP bound): 8080, 3000-3005 or 3000,3002; repeatable"},
			&cli.StringFlag{Name: "pid", Usage: "stop at once, exit 3, when process `PID` (the server, or its tether run) is gone"},
			&cli.BoolFlag{Name: "owned", Usage: "count only a listener held by --pid or its descendants"},
			&cli.BoolFlag{Name: "free", Usage: "wait until nothing listens on any --port any more (a server stopped) instead"},
			&cli.StringFlag{Name: "http", Usage: "ready when GET `PATH` (as /health), sent to the port's own TCP listener, answers below --status; 1s a try"},
			&cli.IntFlag{Name: "status", Value: 500, Usage: "with --http, the first `STATUS` that is not ready (100-999)"},
			&cli.DurationFlag{Name: "timeout", Value: 30 * time.Second, Usage: "give up after `DURATION`, exit 1; 0 checks once"},
			&cli.DurationFlag{Name: "interval", Value: 50 * time.Millisecond, Usage: "pause `DURATION` before the second check, growing by half to 250ms"},
			&cli.BoolFlag{Name: "json", Usage: "print JSON"},
		},
		Action: runWait,
	}
}

// waitReport is tether wait --json.
type waitReport struct {
	Ready     bool             `json:"ready"`
	PIDGone   bool             `json:"pid_gone,omitempty"`
	TimedOut  bool             `json:"timed_out,omitempty"`
	ElapsedMS int64            `json:"elapsed_ms"`
	Ports     []readiness.Port `json:"ports"`
}

// waitSpecFrom is what tether wait was asked, each flag checked here so
// that a bad value is named by its flag.
func waitSpecFrom(c *cli.Context) (readiness.Spec, error) {
	var s readiness.Spec
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
	s.Owned, s.Free = c.Bool("owned"), c.Bool("free")
	if s.Owned && s.PID == 0 {
		return s, usagef("tether wait: --owned needs --pid, the process whose listeners count")
	}
	if c.IsSet("http") {
		if s.HTTP = c.String("http"); s.HTTP == "" {
			return s, usagef("tether wait: --http: invalid path \"\": empty (want a path such as /health)")
		}
	}
	switch {
	case s.Free && s.Owned:
		return s, usagef("tether wait: --free with --owned: a free port has no listener to own")
	case s.Free && s.HTTP != "":
		return s, usagef("tether wait: --free with --http %q: a free port has no listener to answer", s.HTTP)
	case c.IsSet("status") && s.HTTP == "":
		return s, usagef("tether wait: --status %d needs --http, the request it is the answer to", c.Int("status"))
	}
	if s.HTTP != "" {
		s.Status = c.Int("status")
		if s.Status < 100 || s.Status > 999 {
			return s, usagef("tether wait: --status: invalid status %d: must be 100-999", s.Status)
		}
		if err := (readiness.Spec{Ports: s.Ports, HTTP: s.HTTP}).Validate(); err != nil {
			return s, usagef("tether wait: --http: %v", err)
		}
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
	res, err := s.Wait()
	if err != nil {
		return failf("tether wait: %v", err)
	}
	ready, gone := res.Ready, res.PIDGone
	rep := waitReport{Ready: ready, PIDGone: gone, TimedOut: !ready && !gone, ElapsedMS: time.Since(start).Milliseconds(), Ports: res.Ports}
	if c.Bool("json") {
		err = writeJSON(c.App.Writer, rep)
	} else if ready {
		err = writeWait(c.App.Writer, s, rep.Ports)
	}
	if err != nil {
		return failf("tether wait: write: %v", err)
	}
	switch {
	case ready:
		return nil
	case gone:
		return cli.Exit(fmt.Sprintf("tether wait: PID %d is gone; %s", s.PID, missing(s, rep.Ports)), exitPIDGone)
	}
	return cli.Exit(fmt.Sprintf("tether wait: timed out after %v; %s", s.Timeout, missing(s, rep.Ports)), exitTimedOut)
}

// writeWait prints each port and its holders: what is ready, and whose;
// with --http, the answer too.
func writeWait(w io.Writer, s readiness.Spec, ports []readiness.Port) error {
	for _, p := range ports {
		line := fmt.Sprintf("port %d: free", p.Port)
		if !s.Free {
			line = fmt.Sprintf("port %d: %s, %s", p.Port, listenerText(p.Listeners), holdersText(p.Holders))
		}
		if p.URL != "" {
			line += fmt.Sprintf("; GET %s answered %d", sanitize(p.URL), p.HTTPStatus)
		}
		if _, err := fmt.Fprintln(w, line); err != nil {
			return err
		}
	}
	return nil
}

// holdersText names each holder once: PID, name and verdict when
// tethered, command.
func holdersText(holders []readiness.Holder) string {
	var hs []string
	for _, h := range holders {
		who := "PID " + strconv.Itoa(h.PID)
		if h.Tethered {
			who += " (" + sanitize(h.Name) + ", " + string(h.Verdict) + ")"
		}
		hs = append(hs, who+" — "+holderCommand(h.Report))
	}
	if len(hs) == 0 {
		return "a process out of sight"
	}
	return strings.Join(hs, "; ")
}

// missing names what the wait did not get: the ports without a
// listener; with --free, each port still held and by whom; with --http,
// each port not answered and what it answered instead.
func missing(s readiness.Spec, ports []readiness.Port) string {
	var m []string
	for _, p := range ports {
		if p.Ready {
			continue
		}
		switch {
		case s.Free:
			m = append(m, fmt.Sprintf("port %d still held by %s", p.Port, heldBy(p)))
		case s.HTTP != "" && p.HTTPStatus != 0:
			m = append(m, fmt.Sprintf("port %d: GET %s answered %d", p.Port, sanitize(p.URL), p.HTTPStatus))
		case s.HTTP != "" && p.URL != "":
			m = append(m, fmt.Sprintf("port %d: GET %s: %s", p.Port, sanitize(p.URL), sanitize(p.HTTPError)))
		case s.HTTP != "" && p.HTTPError != "":
			m = append(m, fmt.Sprintf("port %d: %s", p.Port, p.HTTPError))
		case s.HTTP != "":
			m = append(m, fmt.Sprintf("port %d: no listener", p.Port))
		default:
			m = append(m, strconv.Itoa(int(p.Port)))
		}
	}
	switch {
	case s.Free && len(m) == 0:
		return "every port is free"
	case s.HTTP != "" && len(m) == 0:
		return "every port answered"
	case s.Free || s.HTTP != "":
		return strings.Join(m, "; ")
	case len(m) == 0:
		return "every port has a listener"
	case len(m) == 1:
		return "no listener on port " + m[0]
	}
	return "no listener on ports " + strings.Join(m, ", ")
}

// heldBy names the holders of a port that is not free: the processes in
// sight, and the owners of sockets whose process is out of sight.
func heldBy(p readiness.Port) string {
	var who []string
	for _, h := range p.Holders {
		who = append(who, fmt.Sprintf("PID %d (%s)", h.PID, holderCommand(h.Report)))
	}
	if len(p.HiddenOwners) > 0 {
		who = append(who, "a process of uid "+joinInts(p.HiddenOwners)+" out of sight")
	}
	if len(who) == 0 {
		// Closed between the last check and the look at its holders.
		return "a socket gone since"
	}
	return strings.Join(who, ", ")
}
