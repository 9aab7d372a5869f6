// Command cli links the command-line library tether is built on and
// exits before using it: the start-up of a Go program that carries
// urfave/cli/v2 and its package initialisation, the floor under any
// tether command (bench/run.sh runs it beside tether).
package main

import (
	"os"

	"github.com/urfave/cli/v2"
)

func main() {
	if len(os.Args) > 1 {
		// Never taken in the benchmark: it keeps the library linked.
		_ = (&cli.App{Name: "cli"}).Run(os.Args)
	}
}
