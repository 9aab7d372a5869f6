package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/urfave/cli/v2"

	"github.com/tetherproc/tether/internal/printable"
	"github.com/tetherproc/tether/probe"
	"github.com/tetherproc/tether/reclaim"
)

// What the commands share in their output: JSON, command lines made safe
// for a terminal, names and lists.

// writeJSON writes v as one line of JSON, with the characters that
// could drive a terminal escaped (printable.JSON) as JSON escapes C0.
func writeJSON(w io.Writer, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(printable.JSON(b.Bytes()))
	return err
}

// commandLine shows the command line, or the kernel's command name in
// brackets when there is none (zombies, kernel threads). Control
// characters are escaped so that a hostile name cannot rewrite the
// terminal.
func commandLine(r probe.Report) string {
	s := joinArgv(r.Command)
	if s == "" && r.Comm != "" {
		s = "[" + r.Comm + "]"
	}
	return sanitize(s)
}

// joinArgv is a command line on one line, as written: a process that
// set its title (nginx, setproctitle, npm exec) pads it with spaces to
// the length of the area it wrote over, and loses the padding here.
func joinArgv(argv []string) string {
	return strings.TrimRight(strings.Join(argv, " "), " ")
}

// holderCommand is commandLine for the holder of a port, which is named
// even when it has no command line to show.
func holderCommand(r probe.Report) string {
	if cmd := commandLine(r); cmd != "" {
		return cmd
	}
	return "command unknown"
}

// sanitize is the one rule for every string that came from a process:
// the name, run id, command line, comm, a reason quoting them.
func sanitize(s string) string { return printable.String(s) }

// displayName is a found process's name, or its verdict in parentheses
// when it has none (a foreign holder of a port).
func displayName(p reclaim.Process) string {
	if p.Name != "" {
		return sanitize(p.Name)
	}
	return "(" + string(p.Verdict) + ")"
}

// managedText names who runs a holder, when a container engine or a
// service manager does: "container tb1 (bb:1, 8e3f1371fb44) via Docker,
// its port proxy"; "" when nothing does.
func managedText(m *reclaim.Manager) string {
	if m == nil {
		return ""
	}
	s := managerText(m)
	if m.Proxy {
		s += ", its port proxy"
	}
	return sanitize(s)
}

// withManager is a holder's command line, after who runs it.
func withManager(p reclaim.Process, cmd string) string {
	if m := managedText(p.Manager); m != "" {
		return "[" + m + "] " + cmd
	}
	return cmd
}

// portsOf lists the ports a found process holds: "8080,8081".
func portsOf(p reclaim.Process) string {
	var s []string
	for _, l := range p.Ports {
		s = append(s, strconv.Itoa(int(l.Port)))
	}
	return strings.Join(s, ",")
}

func listenerText(ls []reclaim.Listener) string {
	parts := make([]string, len(ls))
	for i, l := range ls {
		parts[i] = l.String()
	}
	return strings.Join(parts, ", ")
}

func joinInts(ns []int) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = strconv.Itoa(n)
	}
	return strings.Join(parts, ", ")
}

// supervisorText is the supervisor as this /proc numbers it, with its
// state: "4200 (alive)"; from another PID namespace, with the PID it has
// there: "29643 (alive; PID 1 in pid:[4026532178])".
func supervisorText(s *probe.SupervisorReport) string {
	switch {
	case s.HostPID != 0:
		return fmt.Sprintf("%d (%s; PID %d in pid:[%d])", s.HostPID, s.State, s.PID, s.Namespace)
	case s.Namespace != 0:
		return fmt.Sprintf("%d in pid:[%d] (%s)", s.PID, s.Namespace, s.State)
	}
	return fmt.Sprintf("%d (%s)", s.PID, s.State)
}

// graceStatus is the status line of a reclaim that waits through its
// grace, on a terminal only: how many processes it waits for, and how
// long until KILL, written over in place on stderr; done erases it. Off
// a terminal (a log, a pipe) both do nothing.
func graceStatus(c *cli.Context) (show func(alive int, untilKill time.Duration), done func()) {
	if !isatty.IsTerminal(os.Stderr.Fd()) {
		return nil, func() {}
	}
	w, last := c.App.ErrWriter, ""
	show = func(alive int, untilKill time.Duration) {
		// Written again only when it reads differently: the escalation
		// looks often, the line changes every tenth of a second at most.
		line := fmt.Sprintf("tether: waiting for %d process(es) to exit; KILL in %.1fs", alive, untilKill.Seconds())
		if line != last {
			fmt.Fprint(w, "\r\033[K"+line)
			last = line
		}
	}
	done = func() {
		if last != "" {
			fmt.Fprint(w, "\r\033[K")
		}
	}
	return show, done
}

// ageOf is ", 3h old" for a process whose start is known, "" otherwise.
func ageOf(r probe.Report) string {
	at, err := r.Started()
	if err != nil {
		return ""
	}
	return ", " + age(time.Since(at)) + " old"
}
