package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/tetherproc/tether/internal/doctor"
)

func doctorCommand() *cli.Command {
	return &cli.Command{
		Name:  "doctor",
		Usage: "say what this machine lets tether do for you: each kernel feature it relies on, tried",
		Description: "Exit status: 0 whatever it finds, 125 bad usage.\n\n" +
			"Examples:\n" +
			"   tether doctor\n" +
			"   tether doctor --json",
		HideHelpCommand: true,
		OnUsageError:    usageError,
		Flags:           []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print JSON"}},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usagef("tether doctor: unexpected argument %q", c.Args().First())
			}
			findings := doctor.Check()
			var err error
			if c.Bool("json") {
				err = writeJSON(c.App.Writer, findings)
			} else {
				err = writeFindings(c.App.Writer, findings)
			}
			if err != nil {
				return failf("tether doctor: write: %v", err)
			}
			return nil
		},
	}
}

func writeFindings(w io.Writer, fs []doctor.Finding) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, f := range fs {
		mark := "yes"
		if !f.OK {
			mark = "no"
		}
		fmt.Fprintf(tw, "%s:\t%s\t%s\n", f.Name, mark, strings.TrimSpace(f.Detail))
	}
	return tw.Flush()
}
