//go:build linux

// Command supwd is the floor under tether run with its watchdog: sup's
// work (urfave/cli, "run -- COMMAND" forked in a process group of its own
// with a parent-death signal, waited for, its status) plus a stand-in
// watchdog started before the command and ended after it: /bin/sh
// reading a pipe from the supervisor, tied to it by a parent-death
// signal, as the first stage of tether's watchdog is; at the end it is
// killed and reaped. What a supervisor whose tree outlives no SIGKILL of
// it must do at the least, and what tether run's start-up is held to
// (bench/costs.sh).
package main

import (
	"os"
	"syscall"

	"github.com/urfave/cli/v2"
)

func main() {
	app := &cli.App{Name: "supwd", Commands: []*cli.Command{{
		Name: "run",
		Action: func(c *cli.Context) error {
			var p [2]int
			if err := syscall.Pipe2(p[:], syscall.O_CLOEXEC); err != nil {
				return err
			}
			wd, err := syscall.ForkExec("/bin/sh", []string{"sh", "-c", "read -r x <&3"}, &syscall.ProcAttr{
				Files: []uintptr{0, 1, 2, uintptr(p[0])},
				Sys:   &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true},
			})
			if err != nil {
				return err
			}
			syscall.Close(p[0])
			argv := c.Args().Slice()
			pid, err := syscall.ForkExec(argv[0], argv, &syscall.ProcAttr{
				Env:   os.Environ(),
				Files: []uintptr{0, 1, 2},
				Sys:   &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM, Setpgid: true},
			})
			if err != nil {
				return err
			}
			var ws, wws syscall.WaitStatus
			if _, err := syscall.Wait4(pid, &ws, 0, nil); err != nil {
				return err
			}
			syscall.Close(p[1])
			_ = syscall.Kill(wd, syscall.SIGKILL)
			if _, err := syscall.Wait4(wd, &wws, 0, nil); err != nil {
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
