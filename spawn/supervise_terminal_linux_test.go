package spawn_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tetherproc/tether/internal/proctest"
	"github.com/tetherproc/tether/spawn"
)

// modeTTYSelf is a command that prints "tty PID PGRP FG": its PID, its
// process group and the terminal's foreground group (its standard
// input's). With PROCTEST_STAY set it then waits to be killed.
var modeTTYSelf = proctest.Register("tty-self", func() {
	fg, err := unix.IoctlGetInt(0, unix.TIOCGPGRP)
	if err != nil {
		fmt.Println("tty:", err)
		os.Exit(2)
	}
	fmt.Println("tty", os.Getpid(), unix.Getpgrp(), fg)
	if os.Getenv("PROCTEST_STAY") != "" {
		for {
			time.Sleep(time.Hour)
		}
	}
})

// modeTerminal is a library caller of Supervise on a terminal: it runs
// the command in PROCTEST_ARGS (a JSON array) and then prints
// "foreground FG group PGRP", the terminal's foreground group and its
// own, and its report.
var modeTerminal = proctest.Register("terminal", func() {
	var args []string
	if err := json.Unmarshal([]byte(os.Getenv("PROCTEST_ARGS")), &args); err != nil {
		fmt.Println("error -1 PROCTEST_ARGS:", err)
		os.Exit(2)
	}
	status, err := spawn.Supervise(context.Background(), inherit(exec.Command(args[0], args[1:]...)), spawn.Options{})
	fg, _ := unix.IoctlGetInt(0, unix.TIOCGPGRP)
	fmt.Println("foreground", fg, "group", unix.Getpgrp())
	report(status, err)
})

// A program that leads its own job in the terminal's foreground (here a
// session leader on a pseudo-terminal, as a shell makes each job) hands
// the terminal to its command's group while the command runs, and takes
// it back when Supervise returns: whether the command exits by itself or
// is ended by the terminal's Ctrl-C, which goes to the foreground group
// alone (the command's), and is returned as 128+SIGINT.
func TestSuperviseHandsTerminalOver(t *testing.T) {
	for _, tc := range []struct {
		name   string
		stay   bool // the command waits to be ended by Ctrl-C
		status int
	}{
		{"command exits", false, 0},
		{"Ctrl-C", true, 128 + int(syscall.SIGINT)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			proctest.MaySkip(modeTerminal) // no pseudo-terminal here
			proctest.MaySkip(modeTTYSelf)
			master, slave := proctest.OpenPTY(t)
			// No echo: the terminal would write ^C before the program's
			// next line. Ctrl-C still sends SIGINT (ISIG).
			tio, err := unix.IoctlGetTermios(int(slave.Fd()), unix.TCGETS)
			if err != nil {
				t.Fatal(err)
			}
			tio.Lflag &^= unix.ECHO
			if err := unix.IoctlSetTermios(int(slave.Fd()), unix.TCSETS, tio); err != nil {
				t.Fatal(err)
			}
			// Registered before the helper starts: its output is read
			// from the terminal's other end until the test ends.
			s := readLines(t, master)
			env := []string{commandEnv(helperCommand(modeTTYSelf)...)}
			if tc.stay {
				env = append(env, "PROCTEST_STAY=1")
			}
			s.p = proctest.Start(t, modeTerminal, proctest.Spec{
				Env:   env,
				Stdin: slave, Stdout: slave, Stderr: slave,
				SysProcAttr: &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0},
			})
			slave.Close()
			var pid, pgrp, fg int
			if _, line := s.upTo(t, "tty "); !scanned(line, "tty %d %d %d", &pid, &pgrp, &fg) {
				t.Fatalf("the command said %q, want its PID, group and the terminal's foreground group", line)
			}
			if pgrp != pid || fg != pgrp {
				t.Errorf("command %d in group %d, the terminal's foreground group %d; want the command's own group in the foreground", pid, pgrp, fg)
			}
			if tc.stay {
				if _, err := master.Write([]byte{3}); err != nil { // Ctrl-C
					t.Fatal(err)
				}
			}
			var after, own int
			if _, line := s.upTo(t, "foreground "); !scanned(line, "foreground %d group %d", &after, &own) {
				t.Fatalf("the program said %q, want the terminal's foreground group and its own", line)
			}
			if after != own || own != s.p.PID() {
				t.Errorf("once Supervise returned the terminal's foreground group is %d, the program's %d (PID %d); want the program's back", after, own, s.p.PID())
			}
			if status, _, _ := s.result(t); status != tc.status {
				t.Errorf("status %d, want %d", status, tc.status)
			}
		})
	}
}
