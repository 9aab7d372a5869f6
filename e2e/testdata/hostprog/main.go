// Command hostprog is a Go host program for the tests of spawn's library
// API: a long-running program that starts tethered children with
// spawn.Host (or runs one command with spawn.Supervise) while running
// exec.Cmds of its own beside them, the way an MCP host, a dev-server
// manager or a test harness does. The e2e tests build it and run it as a
// separate process, and judge it from outside: what it reports on
// stdout, which processes are left, and what it did to its own children.
//
//	hostprog tree N [nowatchdog]
//	                     start N children, each with a grandchild in a
//	                     session of its own and a renamed one (with no
//	                     watchdog: the control of the SIGKILL test); print
//	                     "child PID RUNID" for each, then "ready"; then
//	                     read commands on stdin: "stop RUNID" (prints
//	                     "stopped RUNID ERR"), "close" (Close, exit 0)
//	hostprog execs host|supervise|supervise-sole N
//	                     run N concurrent exec.Command("sh", "-c",
//	                     "exit 7").Run() calls while children run under
//	                     spawn.Host (or one spawn.Supervise), beside an
//	                     exec.Command("sleep", "30") of its own; print
//	                     one JSON report. supervise-sole is Supervise
//	                     with Options.SoleReaper, as tether run is: the
//	                     control that shows what the report catches
package main

import (
	"fmt"
	"os"

	"github.com/tetherproc/tether/spawn"
)

func main() {
	// The Host starts this program again as its watchdog, which the call
	// of Init allows; "tree N nowatchdog" runs a Host without one.
	if n := len(os.Args); n == 0 || os.Args[n-1] != "nowatchdog" {
		spawn.Init()
	}
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "hostprog:", err)
		os.Exit(1)
	}
}
