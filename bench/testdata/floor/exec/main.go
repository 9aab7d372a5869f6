//go:build linux

// Command exec is the floor under tether run --exec: it links urfave/cli,
// takes "run --exec -- COMMAND", arms the parent-death signal on its
// locked thread and execs COMMAND. No markers: what tether run --exec's
// start-up is measured against (bench/costs.sh).
package main

import (
	"os"
	"runtime"
	"syscall"

	"github.com/urfave/cli/v2"
	"golang.org/x/sys/unix"
)

func main() {
	app := &cli.App{Name: "exec", Commands: []*cli.Command{{
		Name:  "run",
		Flags: []cli.Flag{&cli.BoolFlag{Name: "exec"}},
		Action: func(c *cli.Context) error {
			runtime.LockOSThread()
			argv := c.Args().Slice()
			if err := unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(syscall.SIGTERM), 0, 0, 0); err != nil {
				return err
			}
			return syscall.Exec(argv[0], argv, os.Environ())
		},
	}}}
	if err := app.Run(os.Args); err != nil {
		os.Exit(125)
	}
}
