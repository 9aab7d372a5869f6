//go:build linux

// Command sup is the floor under tether run: it links urfave/cli, takes
// "run -- COMMAND", forks COMMAND in a process group of its own with a
// parent-death signal, waits for it and exits with its status. No
// markers, no watchdog, no forwarding: what any supervisor must do, and
// what tether run's start-up is measured against (bench/costs.sh).
package main

import (
	"os"
	"syscall"

	"github.com/urfave/cli/v2"
)

func main() {
	app := &cli.App{Name: "sup", Commands: []*cli.Command{{
		Name: "run",
		Action: func(c *cli.Context) error {
			argv := c.Args().Slice()
			pid, err := syscall.ForkExec(argv[0], argv, &syscall.ProcAttr{
				Env:   os.Environ(),
				Files: []uintptr{0, 1, 2},
				Sys:   &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM, Setpgid: true},
			})
			if err != nil {
				return err
			}
			var ws syscall.WaitStatus
			if _, err := syscall.Wait4(pid, &ws, 0, nil); err != nil {
				return err
			}
			os.Exit(ws.ExitStatus())
			return nil
		},
	}}}
	if err := app.Run(os.Args); err != nil {
		os.Exit(125)
	}
}
