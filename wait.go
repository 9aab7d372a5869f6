package main

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/reclaim"
)

// Exit statuses of tether wait besides 0 (ready) and 125 (bad usage).
const (
	exitTimedOut = 1
	exitPIDGone  = 3
)

// waitBackoff is the longest pause between two polls.
const waitBackoff = 250 * time.Millisecond

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

// waitPort is one port in tether wait's report.
type waitPort struct {
	Port      uint16             `json:"port"`
	Ready     bool               `json:"ready"`
	Listeners []reclaim.Listener `json:"listeners,omitempty"`
	Holders   []reclaim.Process  `json:"holders,omitempty"`
}

// waitReport is tether wait --json.
type waitReport struct {
	Ready     bool       `json:"ready"`
	PIDGone   bool       `json:"pid_gone,omitempty"`
	TimedOut  bool       `json:"timed_out,omitempty"`
	ElapsedMS int64      `json:"elapsed_ms"`
	Ports     []waitPort `json:"ports"`
}

// waitSpec is what tether wait was asked.
type waitSpec struct {
	ports    []uint16
	pid      int
	owned    bool
	timeout  time.Duration
	interval time.Duration
}

func waitSpecFrom(c *cli.Context) (waitSpec, error) {
	var s waitSpec
	if c.NArg() > 0 {
		return s, usagef("tether wait: unexpected argument %q (wait for ports with --port)", c.Args().First())
	}
	var err error
	if s.ports, err = parsePorts(c.StringSlice("port")); err != nil {
		return s, usagef("tether wait: --port: %v", err)
	}
	if len(s.ports) == 0 {
		return s, usagef("tether wait: nothing to wait for: give --port")
	}
	if c.IsSet("pid") {
		if s.pid, err = parsePID(c.String("pid")); err != nil {
			return s, usagef("tether wait: --pid: %v", err)
		}
	}
	s.owned = c.Bool("owned")
	if s.owned && s.pid == 0 {
		return s, usagef("tether wait: --owned needs --pid, the process whose listeners count")
	}
	s.timeout, s.interval = c.Duration("timeout"), c.Duration("interval")
	if s.timeout < 0 {
		return s, usagef("tether wait: --timeout: negative duration %q", s.timeout)
	}
	if s.interval <= 0 {
		return s, usagef("tether wait: --interval: %q is not a positive duration", s.interval)
	}
	return s, nil
}

func runWait(c *cli.Context) error {
	s, err := waitSpecFrom(c)
	if err != nil {
		return err
	}
	start := time.Now()
	ready, gone, err := waitFor(s)
	if err != nil {
		return failf("tether wait: %v", err)
	}
	rep := waitReport{Ready: ready, PIDGone: gone, TimedOut: !ready && !gone, ElapsedMS: time.Since(start).Milliseconds()}
	if rep.Ports, err = describePorts(s); err != nil {
		return failf("tether wait: %v", err)
	}
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
		return cli.Exit(fmt.Sprintf("tether wait: PID %d is gone; %s", s.pid, missing(rep.Ports)), exitPIDGone)
	}
	return cli.Exit(fmt.Sprintf("tether wait: timed out after %v; %s", s.timeout, missing(rep.Ports)), exitTimedOut)
}

// waitFor polls until every port is served (ready), the --pid process is
// gone, or the timeout runs out. A pause starts at the interval and grows
// by half each time, to waitBackoff.
func waitFor(s waitSpec) (ready, gone bool, err error) {
	deadline := time.Now().Add(s.timeout)
	var exited <-chan struct{}
	if s.pid != 0 {
		h, err := proc.Host().Open(s.pid)
		if errors.Is(err, proc.ErrGone) {
			return false, true, nil
		} else if err != nil {
			return false, false, fmt.Errorf("--pid %d: %w", s.pid, err)
		}
		exited = watchExit(h, deadline)
	}
	pause := s.interval
	for {
		var owners []int
		if s.owned {
			owners = ownedBy(s.pid)
		}
		served, err := reclaim.Served(s.ports, owners)
		if err != nil {
			return false, false, err
		}
		if len(served) == len(s.ports) {
			return true, false, nil
		}
		left := time.Until(deadline)
		if left <= 0 {
			return false, false, nil
		}
		t := time.NewTimer(min(pause, left))
		select {
		case <-exited:
			t.Stop()
			return false, true, nil
		case <-t.C:
		}
		pause = min(pause*3/2, max(waitBackoff, s.interval))
	}
}

// watchExit reports h's exit (a zombie counts: its exit status is its
// parent's to know) on the channel it returns, until the deadline; the
// handle is its to close.
func watchExit(h *proc.Handle, deadline time.Time) <-chan struct{} {
	c := make(chan struct{})
	go func() {
		defer h.Close()
		for time.Now().Before(deadline) {
			if proc.Exited([]*proc.Handle{h}, deadline)[0] {
				close(c)
				return
			}
		}
	}()
	return c
}

// ownedBy is pid and its descendants: the processes whose listeners count
// with --owned.
func ownedBy(pid int) []int {
	// Linux's children lists; elsewhere one pass over every process.
	var ms []proc.Member
	if runtime.GOOS == "linux" {
		ms = proc.Host().Subtree(pid, 0)
	} else {
		ms = proc.Host().Descendants(pid, 0, 0)
	}
	out := []int{pid}
	for _, m := range ms {
		out = append(out, m.PID)
	}
	return out
}

// describePorts says who serves each port now, whoever it is.
func describePorts(s waitSpec) ([]waitPort, error) {
	procs, err := reclaim.List(reclaim.Filter{Ports: s.ports, AnyUser: true})
	if err != nil {
		return nil, err
	}
	var owners []int
	if s.owned {
		owners = ownedBy(s.pid)
	}
	out := make([]waitPort, len(s.ports))
	for i, port := range s.ports {
		out[i].Port = port
		for _, p := range procs {
			if owners != nil && !slices.Contains(owners, p.PID) {
				continue
			}
			for _, l := range p.Ports {
				if l.Port == port {
					out[i].Listeners = append(out[i].Listeners, l)
					if !slices.ContainsFunc(out[i].Holders, func(q reclaim.Process) bool { return q.PID == p.PID }) {
						out[i].Holders = append(out[i].Holders, p)
					}
				}
			}
		}
		out[i].Ready = len(out[i].Listeners) > 0
	}
	return out, nil
}

// writeWait prints each port and its holders: what is ready, and whose.
func writeWait(w io.Writer, ports []waitPort) error {
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
func missing(ports []waitPort) string {
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
