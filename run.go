package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/tetherproc/tether/internal/exitcode"
	"github.com/tetherproc/tether/marker"
	"github.com/tetherproc/tether/reclaim"
	"github.com/tetherproc/tether/spawn"
)

func runCommand() *cli.Command {
	return &cli.Command{
		Name:      "run",
		Usage:     "run COMMAND tied to tether's life, stamped, in a process group of its own (or its job's)",
		ArgsUsage: "-- COMMAND [ARG...]",
		Description: "Exit status: COMMAND's own; 128+N when it died of signal N; 125 tether failed\n" +
			"(bad usage, spawn failure); 126 COMMAND not executable; 127 COMMAND not found.\n\n" +
			"Examples:\n" +
			"   tether run -- ./server --port 8080 &\n" +
			"   tether run --name api --grace 10s -- npm start\n" +
			"   tether run --port 8080 -- ./server\n" +
			"   tether run --hangup -- npx -y @modelcontextprotocol/server-everything\n" +
			"   tether -- ./entrypoint.sh",
		// "tether run -- h" runs h: no help subcommand here.
		HideHelpCommand: true,
		OnUsageError:    usageError,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "name", Usage: "stamp the name `NAME` (default: the command's base name)"},
			&cli.StringFlag{Name: "signal", Value: "TERM", Usage: "the parent-death `SIGNAL` the command gets when tether dies"},
			&cli.DurationFlag{Name: "grace", Value: 5 * time.Second, Usage: "how long the tree gets between TERM and KILL at cleanup"},
			&cli.BoolFlag{Name: "outlive-parent", Usage: "keep running when tether's parent or an ancestor (the shell, make) dies"},
			&cli.BoolFlag{Name: "hangup", Usage: "end the run when its client hangs up: nothing left to write COMMAND's input nor to read its output (an MCP client that dropped a stdio server)"},
			&cli.BoolFlag{Name: "forking", Usage: "for a COMMAND that daemonizes (pg_ctl start, nginx): run until its whole tree is gone, not until COMMAND exits"},
			&cli.BoolFlag{Name: "exec", Usage: "no supervisor: arm the parent-death signal on tether and exec COMMAND in place"},
			&cli.StringSliceFlag{Name: "port", Aliases: []string{"p"}, Usage: "first free `PORT` (8080, :8080, localhost:8080): reclaim a stranded tethered holder, refuse any other (repeatable)"},
			&cli.BoolFlag{Name: "tcp", Usage: "with --port, only its TCP listening sockets count"},
			&cli.BoolFlag{Name: "udp", Usage: "with --port, only its bound UDP sockets count"},
			&cli.BoolFlag{Name: "foreign", Usage: "with --port: also end a holder tether did not start (a listener of the port, never a client)"},
			&cli.BoolFlag{Name: "replace", Usage: "with --port: end a holder whose tether is alive (a run left in another terminal) through that tether"},
			&cli.GenericFlag{Name: "contain", Value: &containFlag{}, Usage: "keep the whole tree in a kernel container (cgroup or PID namespace) and end it whole; `[=MODE]` is auto (the default), cgroup or pidns"},
		}, markerFlags()...),
		Action: runRun,
	}
}

func runRun(c *cli.Context) error {
	args := c.Args().Slice()
	// urfave/cli turns shell completion off after "--" and hands the
	// completion flag over as an argument: pressing TAB must never start
	// the command.
	if n := len(args); n > 0 && args[n-1] == "--generate-bash-completion" {
		return nil
	}
	cfg, ports, err := runConfig(c, args)
	if err != nil {
		return err
	}
	if err := freePorts(c, cfg, ports); err != nil {
		return err
	}
	cmd := exec.Command(args[0], args[1:]...)
	if c.Bool("exec") {
		return startError(spawn.Exec(cmd, spawn.ExecOptions{Stamp: cfg.Stamp, Markers: cfg.Markers, Signal: cfg.Signal, OutliveParent: cfg.OutliveParent}), true, cfg.Signal)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if cfg.Contain != spawn.NoContainment {
		cmd.ExtraFiles = inheritedFiles()
	}
	ended, err := spawn.Supervise(c.Context, cmd, cfg)
	if err != nil {
		return startError(err, false, cfg.Signal)
	}
	return cli.Exit("", exitcode.Of(ended.Code, ended.Signal))
}

// execConflict refuses what needs tether to stay as the supervisor
// with --exec, which leaves none.
func execConflict(c *cli.Context, cfg spawn.Options) error {
	if !c.Bool("exec") {
		return nil
	}
	for _, f := range []struct {
		name string
		on   bool
	}{{"--hangup", cfg.EndOnHangup}, {"--forking", cfg.Forking}} {
		if f.on {
			return usagef("tether run: %s needs tether to stay as the supervisor: it cannot be combined with --exec", f.name)
		}
	}
	return nil
}

// runConfig reads the flags of run into a spawn.Options and the ports to
// free first, naming any bad value.
func runConfig(c *cli.Context, args []string) (spawn.Options, []uint16, error) {
	if len(args) == 0 {
		return spawn.Options{}, nil, usagef("tether run: no command (usage: tether run [options] -- COMMAND [ARG...])")
	}
	if args[0] == "" {
		return spawn.Options{}, nil, usagef("tether run: empty command name %q", args[0])
	}
	m, err := markersFrom(c)
	if err != nil {
		return spawn.Options{}, nil, err
	}
	cfg := spawn.Options{
		Stamp:         marker.Stamp{Name: c.String("name")},
		Markers:       m,
		Grace:         c.Duration("grace"),
		OutliveParent: c.Bool("outlive-parent"),
		Forking:       c.Bool("forking"),
		EndOnHangup:   c.Bool("hangup"),
		LeaveDir:      true,
		DieBySignal:   true,
		SoleReaper:    true,
	}
	tellUser(c, &cfg, args[0])
	if cfg.Name, err = nameFrom(c); err != nil {
		return cfg, nil, err
	}
	if cfg.Signal, err = parseSignal(c.String("signal")); err != nil {
		return cfg, nil, usagef("tether run: --signal: %v", err)
	}
	if cfg.Grace < 0 {
		return cfg, nil, usagef("tether run: --grace: negative duration %q", cfg.Grace)
	}
	if c.IsSet("contain") {
		f := c.Generic("contain").(*containFlag)
		switch {
		case f.bad != "":
			return cfg, nil, usagef("tether run: --contain: invalid mode %q (want auto, cgroup or pidns)", f.bad)
		case c.Bool("exec"):
			return cfg, nil, usagef("tether run: --contain needs tether to stay as the supervisor: it cannot be combined with --exec")
		case f.bare && slices.Contains([]string{"auto", "cgroup", "pidns"}, args[0]):
			// "--contain cgroup" would run a command named cgroup.
			return cfg, nil, usagef("tether run: --contain takes its mode after \"=\": --contain=%s (a command of that name: ./%s)", args[0], args[0])
		}
		cfg.Contain = f.mode
	}
	if err := execConflict(c, cfg); err != nil {
		return cfg, nil, err
	}
	if cfg.Forking && cfg.Contain == spawn.ContainPIDNamespace {
		return cfg, nil, usagef("tether run: --forking: not with --contain=pidns, whose init ends the namespace when COMMAND exits (--contain=cgroup keeps a daemon's tree)")
	}
	ports, err := parsePorts(c.StringSlice("port"))
	if err != nil {
		return cfg, nil, usagef("tether run: --port: %v", err)
	}
	if _, err := protoFrom(c, len(ports) > 0); err != nil {
		return cfg, nil, usagef("tether run: %v", err)
	}
	return cfg, ports, nil
}

// containFlag is --contain, which may be given bare: as a boolean flag
// of Go's flag package, it takes its value only after "=". A bad value is
// kept for runConfig to refuse, in tether's words rather than the flag
// package's ("invalid boolean value").
type containFlag struct {
	mode spawn.Containment
	bare bool   // given without a value
	bad  string // a value that is no mode
}

func (f *containFlag) IsBoolFlag() bool { return true }
func (f *containFlag) String() string   { return string(f.mode) }

func (f *containFlag) Set(v string) error {
	switch m := spawn.Containment(v); m {
	case "true": // what the flag package passes for a bare --contain
		f.mode, f.bare = spawn.ContainAuto, true
	case spawn.ContainAuto, spawn.ContainCgroup, spawn.ContainPIDNamespace:
		f.mode = m
	default:
		f.bad = v
	}
	return nil
}

// startError gives a failure to start the command its exit status, as a
// shell would: 127 not found, 126 not executable, 125 tether's own
// failure, 128+N when --exec's parent died before the command started
// (signal N, --signal, was delivered to tether then).
func startError(err error, exec bool, sig syscall.Signal) error {
	var se *spawn.StartError
	var ce *spawn.ContainError
	switch {
	case errors.As(err, &ce):
		return cli.Exit(fmt.Sprintf("tether run: --contain=%s: nothing started: %s", ce.Mode, strings.Join(ce.Tried, "; ")), exitFailed)
	case errors.Is(err, errors.ErrUnsupported) && exec:
		return cli.Exit("tether run: --exec needs a parent-death signal, which this platform does not have; run without --exec, which covers the command with the watchdog", exitFailed)
	case errors.Is(err, spawn.ErrParentGone):
		return cli.Exit("tether run: "+err.Error(), exitcode.Of(0, sig))
	case errors.As(err, &se) && se.Exec:
		return cli.Exit("tether run: "+se.Error(), exitcode.Exec(se.Err))
	case errors.As(err, &se):
		return cli.Exit("tether run: "+se.Error(), exitFailed)
	}
	return failf("tether run: %v", err)
}

// freePorts frees the ports --port names before the command starts, as
// reclaim --port would: a stranded tethered holder is reclaimed; with
// --replace, one whose tether is alive is ended through that tether; with
// --foreign, one tether did not start is ended by the socket it holds.
// The ports are looked up again after the signals (the reclaim's
// summary): a port still held refuses the run.
func freePorts(c *cli.Context, cfg spawn.Options, ports []uint16) error {
	proto, _ := protoFrom(c, len(ports) > 0)
	if len(ports) == 0 {
		if c.Bool("foreign") || c.Bool("replace") {
			return usagef("tether run: --foreign and --replace go with --port")
		}
		return nil
	}
	f := reclaim.Filter{Markers: cfg.Markers, Ports: ports, All: c.Bool("replace"), Foreign: c.Bool("foreign"), Proto: proto}
	act := reclaim.Action{Grace: cfg.Grace, ViaSupervisor: c.Bool("replace"), Settle: defaultSettle}
	var done func()
	act.Progress, done = graceStatus(c)
	defer done()
	sum, err := reclaim.Reclaim(c.Context, f, act)
	if err != nil {
		return failf("tether run: --port: %v", err)
	}
	return portRefusal(sum)
}

// portRefusal names the first port the reclaim left held, nil when
// there is none: who holds it, why it was left alone, and the flag that
// would end it, or the selected holder that could not be ended.
func portRefusal(sum reclaim.Summary) error {
	signalled := 0
	for _, r := range sum.Results {
		if len(r.Signals) > 0 {
			signalled++
		}
	}
	done := "nothing was signalled"
	if signalled > 0 {
		done = fmt.Sprintf("%d other holder(s) ended", signalled)
	}
	for _, st := range sum.Ports {
		if st.Free {
			continue
		}
		if len(st.Again) > 0 {
			return failf("tether run: port %d: %s; %s", st.Port, sanitize(retakerText(st.Again[0])), done)
		}
		for _, pid := range st.Holders {
			r, ok := sum.Result(pid)
			if !ok {
				continue
			}
			if r.Selected {
				return failf("tether run: port %s: holder PID %d (%s) not ended: %s %s",
					portsOf(r.Process), r.PID, withManager(r.Process, holderCommand(r.Report)), r.Outcome, whyText(r, noHints))
			}
			return failf("tether run: port %s is held by PID %d (%s): %s; %s",
				portsOf(r.Process), r.PID, withManager(r.Process, holderCommand(r.Report)), whyText(r, runHints), done)
		}
		return failf("tether run: port %d is held by a process of uid %s that tether cannot see; %s",
			st.Port, joinInts(st.Hidden), done)
	}
	return nil
}

// tellUser has the run's events the library reports (an auto
// containment that stepped down, a daemon ended) said on stderr, with
// the flags that change them.
func tellUser(c *cli.Context, cfg *spawn.Options, command string) {
	cfg.OnContain = func(got spawn.Containment, refused []string) {
		fmt.Fprintf(c.App.ErrWriter, "tether: --contain=auto: %s; contained in %s\n", sanitize(strings.Join(refused, "; ")), containName(got))
	}
	cfg.OnDaemonEnded = func(pid int, comm string) {
		fmt.Fprintf(c.App.ErrWriter, "tether: %s exited 0 and left %d (%s), a daemon in a session of its own: ending it (--forking keeps a daemonizing command's tree running)\n", sanitize(command), pid, sanitize(comm))
	}
}

// containName says in words where a run was contained.
func containName(m spawn.Containment) string {
	if m == spawn.ContainPIDNamespace {
		return "a PID namespace"
	}
	return "a cgroup"
}
