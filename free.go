package main

import (
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/tetherproc/tether/reclaim"
)

// freeCommand is tether free PORT...: the one short command for a stuck
// port, as npx kill-port 8080 is typed, with reclaim's safety: the
// port's listeners only (never a client), each through a pidfd after its
// socket is checked again, a tethered holder's run ended whole, a
// container stopped through its engine, a service manager's unit named
// and left, your processes only, and 0 only when the port is free.
func freeCommand() *cli.Command {
	return &cli.Command{
		Name:      "free",
		Usage:     "free PORT: end whatever listens on it, tether's or not (its listeners only, never a client)",
		ArgsUsage: "PORT...",
		Description: "The same as tether reclaim --port PORT --foreign. PORT is 8080, :8080, localhost:8080,\n" +
			"3000-3005 or 3000,3002. A container is stopped through its engine; a systemd unit or a\n" +
			"process manager's program is named, with the command that stops it, and left.\n" +
			"Exit status: 0 every port is free (with --dry-run: would be); 1 a port is still held;\n" +
			"125 bad usage.\n\n" +
			"Examples:\n" +
			"   tether free 8080\n" +
			"   tether free --dry-run 3000-3005\n" +
			"   tether free 5432 && docker compose up -d db",
		HideHelpCommand: true,
		OnUsageError:    usageError,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "dry-run", Usage: "signal nothing; print what would be done"},
			&cli.StringFlag{Name: "signal", Value: "TERM", Usage: "the first `SIGNAL` sent"},
			&cli.DurationFlag{Name: "grace", Value: 5 * time.Second, Usage: "how long a holder gets between the signal and KILL (`DURATION`)"},
			&cli.DurationFlag{Name: "settle", Value: defaultSettle, Usage: "how long a freed port is watched for a process that takes it again (`DURATION`); 0 to not watch"},
			&cli.BoolFlag{Name: "tcp", Usage: "only TCP listening sockets count"},
			&cli.BoolFlag{Name: "udp", Usage: "only bound UDP sockets count"},
			&cli.BoolFlag{Name: "any-user", Usage: "as root: other users' holders too (default: only yours)"},
			&cli.BoolFlag{Name: "json", Usage: "print JSON (as tether reclaim --json)"},
		},
		Action: runFree,
	}
}

func runFree(c *cli.Context) error {
	if c.NArg() == 0 {
		return usagef("tether free: no port (usage: tether free [options] PORT...)")
	}
	for _, a := range c.Args().Slice() {
		if len(a) > 1 && a[0] == '-' {
			// Flags end at the first port, as for every command.
			return usagef("tether free: flags go before the ports: tether free %s %s", a, strings.Join(slices.DeleteFunc(c.Args().Slice(), func(s string) bool { return s == a }), " "))
		}
	}
	ports, err := parsePorts(c.Args().Slice())
	if err != nil {
		return usagef("tether free: %v", err)
	}
	f := reclaim.Filter{Ports: ports, Foreign: true, AnyUser: c.Bool("any-user")}
	if f.Proto, err = protoFrom(c, true); err != nil {
		return usagef("tether free: %v", err)
	}
	if err := f.Validate(); err != nil {
		return usagef("tether free: %v", err)
	}
	return reclaimWith(c, f, "tether free")
}
