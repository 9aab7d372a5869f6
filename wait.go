package main

import (
	"fmt"
	"io"
	"os"
	"slices"
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
		Usage:     "wait until every --port has a listener, every --url answers, every --socket accepts and every --file is there (--free: none left), or --pid is gone",
		ArgsUsage: " ",
		Description: "Exit status: 0 all ready (--http, --url: answered with --status; --free: none left);\n" +
			"1 --timeout ran out, naming each one not ready; 3 --pid is gone; 125 bad usage. Ctrl-C\n" +
			"ends it as any command (130).\n\n" +
			"Examples:\n" +
			"   tether wait --port 8080 --timeout 30s\n" +
			"   tether run -- ./server & tether wait --port 8080 --pid $! && ./run-tests\n" +
			"   tether wait --url http://localhost:8080/health\n" +
			"   tether wait --free --port 8080",
		HideHelpCommand: true,
		OnUsageError:    usageError,
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "port", Aliases: []string{"p"}, Usage: "wait for a listener on `[HOST:]PORT`: 8080, :8080, 3000-3005 or 3000,3002; a HOST of another machine (db:5432) is ready when it accepts a TCP connection; repeatable"},
			&cli.BoolFlag{Name: "tcp", Usage: "count only listening TCP sockets on --port (the default)"},
			&cli.BoolFlag{Name: "udp", Usage: "count only bound UDP sockets on --port instead"},
			&cli.StringSliceFlag{Name: "url", Usage: "ready when GET `URL` (http://HOST:PORT/PATH, https://HOST:PORT/PATH, or http://unix:SOCKET:/PATH) answers with --status; repeatable"},
			&cli.StringSliceFlag{Name: "socket", Usage: "ready when the unix socket `PATH` accepts a connection (--free: when it does not); repeatable"},
			&cli.StringSliceFlag{Name: "file", Usage: "ready when the file `PATH` exists (--free: when it is gone); repeatable"},
			&cli.StringFlag{Name: "pid", Usage: "stop at once, exit 3, when process `PID` (the server, or its tether run) is gone"},
			&cli.BoolFlag{Name: "owned", Usage: "count only a listener held by --pid or its descendants (the default with --pid)"},
			&cli.BoolFlag{Name: "any-holder", Usage: "with --pid, count a listener of any process, not only of --pid's tree (a server that daemonizes out of it)"},
			&cli.BoolFlag{Name: "free", Usage: "wait until nothing listens on any --port, no --socket accepts and no --file is left instead"},
			&cli.StringFlag{Name: "http", Usage: "ready when GET `PATH` (as /health), sent to each --port's own TCP listener, answers with --status"},
			&cli.StringFlag{Name: "status", Value: "200-299", Usage: "with --http or --url, the `STATUSES` that are ready: a list of statuses and ranges, as 200-299,401"},
			&cli.BoolFlag{Name: "no-follow", Usage: "with --http or --url, take a redirect's own status instead of following it (up to 10)"},
			&cli.BoolFlag{Name: "insecure", Aliases: []string{"k"}, Usage: "with an https --url, accept a certificate that does not verify (a dev server's self-signed one)"},
			&cli.DurationFlag{Name: "http-timeout", Value: time.Second, Usage: "with --http or --url, how long one GET may take, connecting and redirects included"},
			&cli.StringFlag{Name: "timeout", Value: "30s", Usage: "give up after `DURATION`, exit 1; 0 checks once; forever waits until ready (or --pid is gone, or Ctrl-C)"},
			&cli.DurationFlag{Name: "interval", Value: 50 * time.Millisecond, Usage: "pause `DURATION` before the second check, growing by half to 100ms"},
			&cli.BoolFlag{Name: "json", Usage: "print JSON"},
		},
		Action: runWait,
	}
}

// waitSpecFrom is what tether wait was asked, each flag checked here so
// that a bad value is named by its flag.
func waitSpecFrom(c *cli.Context) (readiness.Spec, error) {
	var s readiness.Spec
	if c.NArg() > 0 {
		return s, usagef("tether wait: unexpected argument %q (wait for ports with --port, URLs with --url)", c.Args().First())
	}
	if err := waitTargetsFrom(c, &s); err != nil {
		return s, err
	}
	var err error
	if c.IsSet("pid") {
		if s.PID, err = parsePID(c.String("pid")); err != nil {
			return s, usagef("tether wait: --pid: %v", err)
		}
	}
	s.Free = c.Bool("free")
	if err := ownedFrom(c, &s); err != nil {
		return s, err
	}
	if err := waitWebFrom(c, &s); err != nil {
		return s, err
	}
	if s.Timeout, err = parseTimeout(c.String("timeout")); err != nil {
		return s, usagef("tether wait: --timeout: %v", err)
	}
	if s.Interval = c.Duration("interval"); s.Interval <= 0 {
		return s, usagef("tether wait: --interval: %q is not a positive duration", s.Interval)
	}
	return s, nil
}

// waitTargetsFrom reads what wait waits for into s: the ports and their
// protocol, the URLs, the sockets and the files.
func waitTargetsFrom(c *cli.Context, s *readiness.Spec) error {
	var err error
	if s.Ports, s.Remote, err = parseEndpoints(c.StringSlice("port")); err != nil {
		return usagef("tether wait: --port: %v", err)
	}
	for _, raw := range c.StringSlice("url") {
		u, err := readiness.ParseURL(raw)
		if err != nil {
			return usagef("tether wait: --url: %v", err)
		}
		s.URLs = append(s.URLs, u)
	}
	for _, name := range []string{"socket", "file"} {
		for _, p := range c.StringSlice(name) {
			if p == "" {
				return usagef("tether wait: --%s: invalid path \"\": empty", name)
			}
			if fi, err := os.Stat(p); name == "file" && err == nil && fi.IsDir() {
				return usagef("tether wait: --file: %s is a directory, not a file", sanitize(p))
			}
		}
	}
	s.Sockets, s.Files = c.StringSlice("socket"), c.StringSlice("file")
	if len(s.Ports)+len(s.Remote)+len(s.URLs)+len(s.Sockets)+len(s.Files) == 0 {
		return usagef("tether wait: nothing to wait for: give --port, --url, --socket or --file")
	}
	switch {
	case c.Bool("tcp") && c.Bool("udp"):
		return usagef("tether wait: --tcp with --udp: give one (--tcp is the default)")
	case c.Bool("udp"):
		s.Proto = "udp"
		if len(s.Remote) > 0 {
			return usagef("tether wait: --udp with --port %s: a port of another machine is checked by a TCP connection", s.Remote[0])
		}
	default:
		s.Proto = "tcp"
	}
	return nil
}

// waitWebFrom reads the options of wait's HTTP requests into s (--http,
// --status, --no-follow, --http-timeout, --insecure), refusing those
// that go with no request, or with --free.
func waitWebFrom(c *cli.Context, s *readiness.Spec) error {
	if c.IsSet("http") {
		if s.HTTP = c.String("http"); s.HTTP == "" {
			return usagef("tether wait: --http: invalid path \"\": empty (want a path such as /health)")
		}
		if len(s.Ports) == 0 {
			return usagef("tether wait: --http %s needs a --port of this machine, whose listener it is sent to (--url for another host's)", sanitize(s.HTTP))
		}
		if s.Proto == "udp" {
			return usagef("tether wait: --http with --udp: HTTP is asked of a TCP listener")
		}
	}
	web := s.HTTP != "" || len(s.URLs) > 0
	switch {
	case s.Free && s.HTTP != "":
		return usagef("tether wait: --free with --http %q: a free port has no listener to answer", s.HTTP)
	case s.Free && len(s.URLs) > 0:
		return usagef("tether wait: --free with --url %s: a URL is waited for to answer (--free -p HOST:PORT waits until it refuses)", s.URLs[0])
	case !web && c.IsSet("status"):
		return usagef("tether wait: --status %s needs --http or --url, the request it is the answer to", sanitize(c.String("status")))
	case !web && c.IsSet("no-follow"):
		return usagef("tether wait: --no-follow needs --http or --url")
	case !web && c.IsSet("http-timeout"):
		return usagef("tether wait: --http-timeout needs --http or --url")
	}
	tls := slices.ContainsFunc(s.URLs, func(u readiness.URL) bool { return u.TLS })
	if c.Bool("insecure") && !tls {
		return usagef("tether wait: --insecure needs an https --url, whose certificate it is about")
	}
	s.Insecure = c.Bool("insecure")
	if !web {
		return nil
	}
	var err error
	if s.Accept, err = readiness.ParseStatuses(c.String("status")); err != nil {
		return usagef("tether wait: --status: %v", err)
	}
	s.NoFollow = c.Bool("no-follow")
	if s.HTTPTimeout = c.Duration("http-timeout"); s.HTTPTimeout <= 0 {
		return usagef("tether wait: --http-timeout: %q is not a positive duration", s.HTTPTimeout)
	}
	if s.HTTP != "" {
		if err := (readiness.Spec{Ports: s.Ports, HTTP: s.HTTP}).Validate(); err != nil {
			return usagef("tether wait: --http: %v", err)
		}
	}
	return nil
}

// parseTimeout parses --timeout: a duration (0 looks once), or forever.
// A bare number is refused rather than guessed at: wait-on takes
// milliseconds, other tools seconds.
func parseTimeout(v string) (time.Duration, error) {
	switch strings.ToLower(v) {
	case "forever", "none", "inf", "infinity":
		return readiness.NoLimit, nil
	}
	if _, err := strconv.ParseFloat(v, 64); err == nil && v != "0" {
		return 0, fmt.Errorf("invalid duration %q: give a unit (%sms, %ss), or forever", v, v, v)
	}
	d, err := time.ParseDuration(v)
	switch {
	case err != nil:
		return 0, fmt.Errorf("invalid duration %q: want a duration such as 30s, 2m or 500ms, 0 to look once, or forever", v)
	case d < 0:
		return 0, fmt.Errorf("negative duration %q", v)
	}
	return d, nil
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
	if c.Bool("json") {
		err = writeJSON(c.App.Writer, waitJSON(res, time.Since(start)))
	} else if ready {
		err = writeWait(c.App.Writer, s, res.Ports, res.Targets)
	}
	if err != nil {
		return failf("tether wait: write: %v", err)
	}
	switch {
	case ready:
		return nil
	case gone:
		return cli.Exit(fmt.Sprintf("tether wait: PID %d is gone; %s", s.PID, missing(s, res.Ports, res.Targets)), exitPIDGone)
	}
	return cli.Exit(fmt.Sprintf("tether wait: timed out after %v; %s", s.Timeout, missing(s, res.Ports, res.Targets)), exitTimedOut)
}

// ownedFrom decides whose listeners count. With --pid, only those of
// --pid's tree (the server being waited for, not a stale one left on the
// port); --any-holder counts any, as --free and a wait without --pid do.
func ownedFrom(c *cli.Context, s *readiness.Spec) error {
	owned, any := c.Bool("owned"), c.Bool("any-holder")
	switch {
	case owned && any:
		return usagef("tether wait: --owned with --any-holder: give one")
	case (owned || any) && s.PID == 0:
		flag := map[bool]string{true: "--owned", false: "--any-holder"}[owned]
		return usagef("tether wait: %s needs --pid, the process whose listeners count", flag)
	case owned && s.Free:
		return usagef("tether wait: --free with --owned: a free port has no listener to own")
	}
	s.Owned = s.PID != 0 && len(s.Ports) > 0 && !s.Free && !any
	return nil
}

// writeWait prints each port and its holders: what is ready, and whose;
// with --http, the answer too.
func writeWait(w io.Writer, s readiness.Spec, ports []readiness.Port, targets []readiness.Target) error {
	for _, p := range ports {
		line := fmt.Sprintf("port %d: free", p.Port)
		switch {
		case s.Free:
		case len(p.Listeners) == 0 && len(p.HiddenOwners) > 0:
			line = fmt.Sprintf("port %d: held by a process of uid %s, out of sight: run as root to see it", p.Port, joinInts(p.HiddenOwners))
		default:
			line = fmt.Sprintf("port %d: %s, %s", p.Port, listenerText(p.Listeners), holdersText(p.Holders))
		}
		if p.URL != "" {
			line += fmt.Sprintf("; GET %s answered %d", sanitize(p.URL), p.HTTPStatus)
		}
		if _, err := fmt.Fprintln(w, line); err != nil {
			return err
		}
	}
	for _, t := range targets {
		if _, err := fmt.Fprintln(w, targetText(t)); err != nil {
			return err
		}
	}
	return nil
}

// targetText is one resource and what was found of it: "tcp
// db:5432: accepted at 172.18.0.2:5432", "GET http://…: answered 200".
func targetText(t readiness.Target) string {
	kind := t.Kind
	if kind == "http" {
		kind = "GET"
	}
	return kind + " " + sanitize(t.Name) + ": " + sanitize(t.Detail)
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
func missing(s readiness.Spec, ports []readiness.Port, targets []readiness.Target) string {
	var m, other []string
	for _, p := range ports {
		switch {
		case p.Ready:
		case s.Owned && !s.Free && s.HTTP == "" && len(p.Others) > 0 && len(p.Holders) == 0:
			// Said whole: a stale server is there, not the one waited for.
			other = append(other, fmt.Sprintf("port %d: held by %s, not by --pid's tree (--any-holder counts it)", p.Port, holdersText(p.Others)))
		default:
			m = append(m, missingPort(s, p))
		}
	}
	for _, t := range targets {
		if !t.Ready {
			other = append(other, targetText(t))
		}
	}
	if len(other) > 0 {
		if len(m) > 0 {
			other = append([]string{missingPorts(s, m)}, other...)
		}
		return strings.Join(other, "; ")
	}
	if len(m) == 0 && len(ports) == 0 {
		return "every one is ready"
	}
	return missingPorts(s, m)
}

// missingPort words one port that is not ready, for missingPorts.
func missingPort(s readiness.Spec, p readiness.Port) string {
	switch {
	case s.Free:
		return fmt.Sprintf("port %d still held by %s", p.Port, heldBy(p))
	case s.HTTP != "" && p.HTTPStatus != 0:
		return fmt.Sprintf("port %d: GET %s answered %d", p.Port, sanitize(p.URL), p.HTTPStatus)
	case s.HTTP != "" && p.URL != "":
		return fmt.Sprintf("port %d: GET %s: %s", p.Port, sanitize(p.URL), sanitize(p.HTTPError))
	case s.HTTP != "" && p.HTTPError != "":
		return fmt.Sprintf("port %d: %s", p.Port, p.HTTPError)
	case s.HTTP != "":
		return fmt.Sprintf("port %d: no listener", p.Port)
	}
	return strconv.Itoa(int(p.Port))
}

// missingPorts words what missing found of the ports.
func missingPorts(s readiness.Spec, m []string) string {
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
