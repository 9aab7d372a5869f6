package main

import (
	"github.com/urfave/cli/v2"

	"github.com/tetherproc/tether/reclaim"
)

// filterFlags are the selection flags shared by reclaim and ps.
func filterFlags() []cli.Flag {
	return append([]cli.Flag{
		&cli.StringFlag{Name: "name", Usage: "only processes named `NAME`"},
		&cli.StringSliceFlag{Name: "port", Usage: "only the holders of `PORT` (TCP listening or UDP bound; repeatable)"},
		&cli.StringFlag{Name: "run-id", Usage: "only the run `ID` (32 hex digits)"},
		&cli.BoolFlag{Name: "any-user", Usage: "include other users' processes (default: only yours)"},
		&cli.BoolFlag{Name: "json", Usage: "print JSON"},
	}, markerFlags()...)
}

// filterOptions reads the selection flags, naming any bad value.
func filterOptions(c *cli.Context) (reclaim.Options, error) {
	cmd := "tether " + c.Command.Name
	m, err := markersFrom(c)
	if err != nil {
		return reclaim.Options{}, err
	}
	opts := reclaim.Options{
		Markers: m,
		Name:    c.String("name"),
		RunID:   c.String("run-id"),
		AnyUser: c.Bool("any-user"),
	}
	if c.IsSet("name") && opts.Name == "" {
		return opts, usagef("%s: --name: invalid name \"\": empty", cmd)
	}
	if c.IsSet("run-id") && opts.RunID == "" {
		return opts, usagef("%s: --run-id: invalid run id \"\": empty", cmd)
	}
	if opts.Ports, err = parsePorts(c.StringSlice("port")); err != nil {
		return opts, usagef("%s: --port: %v", cmd, err)
	}
	if err := opts.Validate(); err != nil {
		return opts, usagef("%s: %v", cmd, err)
	}
	return opts, nil
}

func parsePorts(args []string) ([]uint16, error) {
	var ports []uint16
	for _, a := range args {
		p, err := reclaim.ParsePort(a)
		if err != nil {
			return nil, err
		}
		ports = append(ports, p)
	}
	return ports, nil
}
