package main

import (
	_ "embed"
	"io"

	"github.com/urfave/cli/v2"
)

// manPage is tether's manual page, docs/man/tether.1, built into the
// binary: a go install leaves no checkout to take it from, and a page
// that ships with the binary describes that binary. A test keeps the file
// what the command definitions make.
//
//go:embed docs/man/tether.1
var manPage string

func manCommand() *cli.Command {
	return &cli.Command{
		Name:  "man",
		Usage: "print the manual page, to read (tether man | man -l -) or install",
		Description: "Exit status: 0, or 125 when the page cannot be written.\n\n" +
			"Examples:\n" +
			"   tether man | man -l -\n" +
			"   mkdir -p ~/.local/share/man/man1 && tether man > ~/.local/share/man/man1/tether.1\n" +
			"   sudo sh -c 'tether man > /usr/local/share/man/man1/tether.1'",
		HideHelpCommand: true,
		OnUsageError:    usageError,
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usagef("tether man: unexpected argument %q", c.Args().First())
			}
			if _, err := io.WriteString(c.App.Writer, manPage); err != nil {
				return failf("tether man: write: %v", err)
			}
			return nil
		},
	}
}
