package main

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/tetherproc/tether/abandoned"
	"github.com/tetherproc/tether/internal/trace"
	"github.com/tetherproc/tether/reclaim"
)

// abandonedFlag selects, in ps and reclaim, the stdio trees their client
// abandoned, which tether never started: never a default, always asked
// for by name.
func abandonedFlag() cli.Flag {
	return &cli.BoolFlag{Name: "abandoned", Usage: "stdio trees their client abandoned (an MCP server left by a client that crashed or dropped it), tether's or not: reparented, with no writer of their input and no reader of their output left"}
}

// abandonedFrom reads the flags that go with --abandoned, refusing the
// selections of tethered processes it does not combine with.
func abandonedFrom(c *cli.Context) (anyUser bool, err error) {
	for _, flag := range []string{"name", "port", "run-id", "all", "foreign", "tcp", "udp", "settle", "marker-var", "name-var"} {
		if c.IsSet(flag) {
			return false, usagef("tether %s: --abandoned selects by the other ends of stdin and stdout alone: not with --%s", c.Command.Name, flag)
		}
	}
	return c.Bool("any-user"), nil
}

// findAbandoned lists the abandoned trees and traces the ones left out.
func findAbandoned(c *cli.Context, anyUser bool) ([]abandoned.Tree, error) {
	l, err := abandoned.Find(anyUser)
	if errors.Is(err, abandoned.ErrUnsupported) {
		return nil, failf("tether %s: --abandoned: not on this platform: the other ends of a process's stdin and stdout are read on Linux only", c.Command.Name)
	} else if err != nil {
		return nil, failf("tether %s: --abandoned: %v", c.Command.Name, err)
	}
	for _, o := range l.LeftOut {
		trace.Printf("abandoned: %d (%s) left out: %s", o.Root.PID, sanitize(o.Comm), leftOutText(o.Why))
	}
	return l.Trees, nil
}

// leftOutText says why a reparented stdio tree is not selected.
func leftOutText(why abandoned.Why) string {
	switch why {
	case abandoned.LivePeer:
		return "something outside it still writes its input or reads its output"
	case abandoned.EndsUnknown:
		return "the other ends of its input and output cannot be read (another user's, another network namespace, mid-execve)"
	case abandoned.ManagedTree:
		return "a container engine or a service manager runs it"
	case abandoned.OnTerminal:
		return "it has a terminal"
	case abandoned.MemberProtected:
		return "it holds PID 1, tether or an ancestor of tether"
	case abandoned.MemberOtherUser:
		return "a process of it is another user's (--any-user, as root, to include it)"
	case abandoned.RootChanged:
		return "its root exited or its input or output changed meanwhile"
	}
	return "not abandoned"
}

// abandonedJSON is one tree in --json.
type abandonedJSON struct {
	PID           int            `json:"pid"`
	StartTime     uint64         `json:"start_time"`
	AgeSeconds    int64          `json:"age_seconds"`
	ResidentBytes uint64         `json:"resident_bytes"`
	Ports         []listenerJSON `json:"ports,omitempty"`
	Members       []memberJSON   `json:"members"`
}

type memberJSON struct {
	PID           int      `json:"pid"`
	PPID          int      `json:"ppid"`
	UID           int      `json:"uid"`
	Comm          string   `json:"comm"`
	Command       []string `json:"command"`
	ResidentBytes uint64   `json:"resident_bytes"`
}

func abandonedToJSON(t abandoned.Tree, now time.Time) abandonedJSON {
	j := abandonedJSON{PID: t.Root.PID, StartTime: t.Root.StartTime, ResidentBytes: t.Resident(), Ports: listenersOf(t.Ports)}
	if !t.Started.IsZero() {
		j.AgeSeconds = int64(now.Sub(t.Started) / time.Second)
	}
	for _, m := range t.Members {
		cmd := make([]string, len(m.Command))
		for i, a := range m.Command {
			cmd[i] = sanitize(a)
		}
		j.Members = append(j.Members, memberJSON{PID: m.ID.PID, PPID: m.PPID, UID: m.UID, Comm: sanitize(m.Comm), Command: cmd, ResidentBytes: m.Resident})
	}
	return j
}

// writeAbandoned is tether ps --abandoned: a row a tree, its members'
// names in the order of the tree, then the root's command line.
func writeAbandoned(w io.Writer, trees []abandoned.Tree, now time.Time) error {
	if len(trees) == 0 {
		_, err := fmt.Fprintln(w, "no abandoned stdio tree")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "PID\tAGE\tMEMORY\tPORTS\tTREE\tCOMMAND")
	for _, t := range trees {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\n", t.Root.PID, treeAge(t, now), memory(t.Resident()), portsText(t.Ports), treeText(t), rootCommand(t))
	}
	return tw.Flush()
}

func treeAge(t abandoned.Tree, now time.Time) string {
	if t.Started.IsZero() {
		return "-"
	}
	return age(now.Sub(t.Started))
}

// treeText names the members in the tree's order: "npm exec > sh > node".
func treeText(t abandoned.Tree) string {
	names := make([]string, len(t.Members))
	for i, m := range t.Members {
		names[i] = sanitize(shortComm(m.Comm))
	}
	return strings.Join(names, " > ")
}

// shortComm is a name as the kernel keeps it, cut at its first word when
// the kernel cut it (15 bytes): a title such as "npm exec node d" reads as
// npm, not as a name of its own.
func shortComm(comm string) string {
	if len(comm) == 15 {
		if i := strings.IndexByte(comm, ' '); i > 0 {
			return comm[:i]
		}
	}
	return comm
}

func rootCommand(t abandoned.Tree) string {
	if len(t.Members) == 0 || len(t.Members[0].Command) == 0 {
		return "-"
	}
	return commandText(t.Members[0].Command)
}

// commandText is a command line for display: a title written over the
// arguments (npm exec's, padded with spaces) loses its padding.
func commandText(args []string) string {
	return sanitize(joinArgv(args))
}

// portsText is listeners as ps shows them: "tcp/8080,udp/5353"; "-"
// for none.
func portsText(ls []reclaim.Listener) string {
	if len(ls) == 0 {
		return "-"
	}
	var ps []string
	for _, l := range ls {
		ps = append(ps, protoPort(l.Proto, l.Port))
	}
	return strings.Join(ps, ",")
}

// rowPortsText is portsText of the listeners of a row of --abandoned.
func rowPortsText(ls []listenerJSON) string {
	var ps []string
	for _, l := range ls {
		ps = append(ps, protoPort(l.Proto, l.Port))
	}
	return strings.Join(ps, ",")
}

func protoPort(proto string, port uint16) string { return proto + "/" + strconv.Itoa(int(port)) }

// memory is short, as ps and top show it: 840K, 37M, 1.2G.
func memory(b uint64) string {
	switch {
	case b == 0:
		return "-"
	case b < 1<<20:
		return strconv.FormatUint(b>>10, 10) + "K"
	case b < 1<<30:
		return strconv.FormatUint(b>>20, 10) + "M"
	}
	return strconv.FormatFloat(float64(b)/(1<<30), 'f', 1, 64) + "G"
}
