//go:build linux

// Command supwd is the floor under tether run with its watchdog: sup's
// work (urfave/cli, "run -- COMMAND" forked in a process group of its own
// with a parent-death signal, waited for, its status) plus a stand-in
// watchdog started before the command: this binary again, tied to the
// supervisor by a parent-death signal and a pipe, which it reads until
// the supervisor closes it. What a supervisor that survives its own
// SIGKILL must do at the least, and what tether run's start-up is held
// to (bench/costs.sh, bench/run.sh).
package main

import (
	"os"
	"syscall"

	"github.com/urfave/cli/v2"
)

func main() {
	if len(os.Args) == 2 && os.Args[1] == "watchdog" {
		// The stand-in watches: it waits for the supervisor's end.
		buf := make([]byte, 1)
		for {
			if n, err := syscall.Read(3, buf); n <= 0 || err != nil {
				os.Exit(0)
			}
		}
	}
	app := &cli.App{Name: "supwd", Commands: []*cli.Command{{
		Name: "run",
		Action: func(c *cli.Context) error {
			var p [2]int
			if err := syscall.Pipe2(p[:], syscall.O_CLOEXEC); err != nil {
				return err
			}
			wd, err := syscall.ForkExec("/proc/self/exe", []string{"supwd", "watchdog"}, &syscall.ProcAttr{
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
