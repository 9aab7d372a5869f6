package main

import (
	"errors"
	"github.com/urfave/cli/v2"

	"github.com/tetherproc/tether/marker"
	"github.com/tetherproc/tether/reclaim"
)

// markerFlags name another supervisor's marker scheme; every command
// that reads markers takes them.
func markerFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "marker-var", Value: marker.DefaultMarkerVar, Usage: "the marker variable, which must hold `KEY`=1"},
		&cli.StringFlag{Name: "name-var", Value: marker.DefaultNameVar, Usage: "the variable that holds the name (`KEY`)"},
	}
}

func markersFrom(c *cli.Context) (marker.Markers, error) {
	m := marker.Markers{MarkerVar: c.String("marker-var"), NameVar: c.String("name-var")}
	for _, flag := range []string{"marker-var", "name-var"} {
		if c.IsSet(flag) && c.String(flag) == "" {
			return m, usagef("tether %s: --%s: empty variable name", c.Command.Name, flag)
		}
	}
	if err := m.Validate(); err != nil {
		return m, usagef("tether %s: %v", c.Command.Name, err)
	}
	return m, nil
}

// nameFrom reads --name, which when given (even empty) must be a name
// of the protocol (marker.ValidateName).
func nameFrom(c *cli.Context) (string, error) {
	name := c.String("name")
	if !c.IsSet("name") {
		return name, nil
	}
	if err := marker.ValidateName(name); err != nil {
		return "", usagef("tether %s: --name: %v", c.Command.Name, err)
	}
	return name, nil
}

// filterFlags are the selection flags shared by reclaim and ps.
func filterFlags() []cli.Flag {
	return append([]cli.Flag{
		&cli.StringFlag{Name: "name", Usage: "only processes named `NAME`"},
		&cli.StringSliceFlag{Name: "port", Aliases: []string{"p"}, Usage: "only the holders of `PORT` (TCP listening or UDP bound): 8080, :8080, localhost:8080, 3000-3005 or 3000,3002; repeatable"},
		&cli.BoolFlag{Name: "tcp", Usage: "with --port, only TCP listening sockets count"},
		&cli.BoolFlag{Name: "udp", Usage: "with --port, only bound UDP sockets count"},
		&cli.StringFlag{Name: "run-id", Usage: "only the run `ID` (32 hex digits)"},
		&cli.BoolFlag{Name: "any-user", Usage: "include other users' processes (default: only yours)"},
		abandonedFlag(),
		&cli.BoolFlag{Name: "json", Usage: "print JSON"},
	}, markerFlags()...)
}

// filterFrom reads the selection flags, naming any bad value.
func filterFrom(c *cli.Context) (reclaim.Filter, error) {
	cmd := "tether " + c.Command.Name
	m, err := markersFrom(c)
	if err != nil {
		return reclaim.Filter{}, err
	}
	f := reclaim.Filter{
		Markers: m,
		Name:    c.String("name"),
		RunID:   c.String("run-id"),
		AnyUser: c.Bool("any-user"),
	}
	if c.IsSet("name") && f.Name == "" {
		return f, usagef("%s: --name: invalid name \"\": empty", cmd)
	}
	if c.IsSet("run-id") && f.RunID == "" {
		return f, usagef("%s: --run-id: invalid run id \"\": empty", cmd)
	}
	if f.Ports, err = parsePorts(c.StringSlice("port")); err != nil {
		return f, usagef("%s: --port: %v", cmd, err)
	}
	if f.Proto, err = protoFrom(c, len(f.Ports) > 0); err != nil {
		return f, usagef("%s: %v", cmd, err)
	}
	if err := f.Validate(); err != nil {
		return f, usagef("%s: %v", cmd, err)
	}
	return f, nil
}

// protoFrom reads --tcp and --udp: the kind of socket on --port that
// counts, "" for both (freeing or listing a port means every socket on
// it, of either kind).
func protoFrom(c *cli.Context, ports bool) (string, error) {
	tcp, udp := c.Bool("tcp"), c.Bool("udp")
	switch {
	case tcp && udp:
		return "", errors.New("--tcp with --udp: give one, or neither for both")
	case (tcp || udp) && !ports:
		return "", errors.New("--tcp and --udp need --port, the ports whose sockets they choose")
	case tcp:
		return "tcp", nil
	case udp:
		return "udp", nil
	}
	return "", nil
}
