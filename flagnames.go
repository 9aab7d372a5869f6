package main

import (
	"slices"

	"github.com/urfave/cli/v2"
)

// urfave/cli makes a flag's list of names anew at each call of Names,
// through a regular expression, and at each start looks every flag of
// the command up by each name of each other (runFlagActions, IsSet):
// about a thousand matches for run's flags, 0.2 ms of every tether run's
// start-up. The flags below answer Names from a list made once; they are
// pointers, which urfave/cli compares.
type (
	namedBool struct {
		*cli.BoolFlag
		names []string
	}
	namedString struct {
		*cli.StringFlag
		names []string
	}
	namedDuration struct {
		*cli.DurationFlag
		names []string
	}
	namedStringSlice struct {
		*cli.StringSliceFlag
		names []string
	}
	namedGeneric struct {
		*cli.GenericFlag
		names []string
	}
)

func (f *namedBool) Names() []string        { return f.names }
func (f *namedString) Names() []string      { return f.names }
func (f *namedDuration) Names() []string    { return f.names }
func (f *namedStringSlice) Names() []string { return f.names }
func (f *namedGeneric) Names() []string     { return f.names }

// nameOnce gives each flag of app and its commands its names made once,
// and so to --help and --version, which urfave/cli adds to each as it
// runs (a second call keeps them as they are).
func nameOnce(app *cli.App) {
	named := namedFlags([]cli.Flag{cli.HelpFlag, cli.VersionFlag})
	cli.HelpFlag, cli.VersionFlag = named[0], named[1]
	app.Flags = namedFlags(app.Flags)
	eachCommand(app.Commands, func(c *cli.Command) { c.Flags = namedFlags(c.Flags) })
}

// eachCommand calls f on each command and, after it, its subcommands.
func eachCommand(cs []*cli.Command, f func(*cli.Command)) {
	for _, c := range cs {
		f(c)
		eachCommand(c.Subcommands, f)
	}
}

// namedFlags is fs with each flag of a kind above answering Names from a
// list of its own; a flag of another kind is kept as it is.
func namedFlags(fs []cli.Flag) []cli.Flag {
	out := make([]cli.Flag, len(fs))
	for i, f := range fs {
		switch f := f.(type) {
		case *cli.BoolFlag:
			out[i] = &namedBool{f, names(f.Name, f.Aliases)}
		case *cli.StringFlag:
			out[i] = &namedString{f, names(f.Name, f.Aliases)}
		case *cli.DurationFlag:
			out[i] = &namedDuration{f, names(f.Name, f.Aliases)}
		case *cli.StringSliceFlag:
			out[i] = &namedStringSlice{f, names(f.Name, f.Aliases)}
		case *cli.GenericFlag:
			out[i] = &namedGeneric{f, names(f.Name, f.Aliases)}
		default:
			out[i] = f
		}
	}
	return out
}

// names is a flag's name and aliases, as urfave/cli's FlagNames gives
// them for names without a comma or space (which no flag of tether's
// has): without its regular expression.
func names(name string, aliases []string) []string {
	return slices.Clip(append([]string{name}, aliases...))
}

// plainFlag is the flag urfave/cli made, for the code that asks a flag
// its kind: urfave/cli's fish script, help's placeholders.
func plainFlag(f cli.Flag) cli.Flag {
	switch f := f.(type) {
	case *namedBool:
		return f.BoolFlag
	case *namedString:
		return f.StringFlag
	case *namedDuration:
		return f.DurationFlag
	case *namedStringSlice:
		return f.StringSliceFlag
	case *namedGeneric:
		return f.GenericFlag
	}
	return f
}

// plainFlags puts back the flags urfave/cli made in app and its commands.
func plainFlags(app *cli.App) {
	app.Flags = plainList(app.Flags)
	eachCommand(app.Commands, func(c *cli.Command) { c.Flags = plainList(c.Flags) })
}

func plainList(fs []cli.Flag) []cli.Flag {
	out := make([]cli.Flag, len(fs))
	for i, f := range fs {
		out[i] = plainFlag(f)
	}
	return out
}
