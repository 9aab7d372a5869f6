package main

import (
	_ "embed"
	"io"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"
)

// completionScripts are the scripts tether completion prints, by shell.
// Each asks tether itself for the candidates (urfave/cli's
// --generate-bash-completion), except after "--", where the words are the
// command's own and file names are offered.
var completionScripts = map[string]func(app *cli.App) (string, error){
	"bash": func(*cli.App) (string, error) { return bashCompletion, nil },
	"zsh":  func(*cli.App) (string, error) { return zshCompletion, nil },
	"fish": func(app *cli.App) (string, error) {
		plainFlags(app) // urfave/cli asks each flag its kind
		s, err := app.ToFishCompletion()
		return "# fish completion for tether: tether completion fish > ~/.config/fish/completions/tether.fish\n" + s, err
	},
	"powershell": func(*cli.App) (string, error) { return powershellCompletion, nil },
}

func completionShells() string {
	var names []string
	for n := range completionScripts {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

func completionCommand() *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print the shell completion script for SHELL: " + completionShells(),
		ArgsUsage: "SHELL",
		Description: "Examples:\n" +
			"   tether completion bash > ~/.local/share/bash-completion/completions/tether\n" +
			"   tether completion fish > ~/.config/fish/completions/tether.fish",
		HideHelpCommand: true,
		OnUsageError:    usageError,
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("tether completion: want one shell (%s), got %d arguments", completionShells(), c.NArg())
			}
			gen, ok := completionScripts[c.Args().First()]
			if !ok {
				return usagef("tether completion: unknown shell %q (want %s)", c.Args().First(), completionShells())
			}
			s, err := gen(c.App)
			if err != nil {
				return failf("tether completion: %v", err)
			}
			_, err = io.WriteString(c.App.Writer, s)
			if err != nil {
				return failf("tether completion: write: %v", err)
			}
			return nil
		},
	}
}

// The bash, zsh and PowerShell scripts are written by hand and embedded
// from completions/, their one copy. The fish script is generated from the
// app's commands and flags; completions/tether.fish is a copy of it, kept
// current by a test.
var (
	//go:embed completions/tether.bash
	bashCompletion string
	//go:embed completions/_tether
	zshCompletion string
	//go:embed completions/tether.ps1
	powershellCompletion string
)
