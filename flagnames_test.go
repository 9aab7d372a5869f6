package main

import (
	"io"
	"slices"
	"testing"

	"github.com/urfave/cli/v2"
)

// Every flag of every command answers Names from one list, and the flag
// behind it is still what urfave/cli made (its fish script and help ask).
func TestFlagsNamedOnce(t *testing.T) {
	app := newApp(io.Discard, io.Discard)
	lists := map[string][]cli.Flag{"tether": app.Flags}
	for _, c := range app.Commands {
		lists[c.Name] = c.Flags
	}
	for cmd, fs := range lists {
		for _, f := range fs {
			a, b := f.Names(), f.Names()
			if len(a) == 0 || &a[0] != &b[0] {
				t.Errorf("%s: flag %v: Names made anew at each call", cmd, a)
			}
			if plainFlag(f) == f {
				t.Errorf("%s: flag %v: not one of the named kinds", cmd, a)
			}
		}
	}
}

// BenchmarkStartRun is what a run's command line costs before the
// command starts: the app made, the flags of run parsed.
func BenchmarkStartRun(b *testing.B) {
	args := []string{"tether", "run", "--name", "api", "--", "/bin/true"}
	for b.Loop() {
		app := newApp(io.Discard, io.Discard)
		for _, c := range app.Commands {
			if c.Name == "run" {
				c.Action = func(*cli.Context) error { return nil }
			}
		}
		if err := app.Run(args); err != nil {
			b.Fatal(err)
		}
	}
}

// names gives what urfave/cli's FlagNames gives for every flag of
// tether's: were a name given a comma or space, the two would differ.
func TestNamesAsFlagNames(t *testing.T) {
	app := newApp(io.Discard, io.Discard)
	for _, c := range append([]*cli.Command{{Name: "tether", Flags: app.Flags}}, app.Commands...) {
		for _, f := range c.Flags {
			got := f.Names()
			want := plainFlag(f).Names()
			if !slices.Equal(got, want) {
				t.Errorf("%s: names %q, urfave/cli's %q", c.Name, got, want)
			}
		}
	}
}
