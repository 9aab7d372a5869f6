package spawn_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/proctest"
	"github.com/tetherproc/tether/spawn"
)

var modeDaemonHook = proctest.Register("daemon-hook", daemonHookHelper)

// daemonHookHelper is a library caller of Supervise whose command exits
// 0 and leaves a daemon: it prints what OnDaemonEnded was told, one
// "daemon PID COMM" line each, then the exit status.
func daemonHookHelper() {
	var told []string
	status, err := spawn.Supervise(context.Background(), inherit(exec.Command("/bin/sh", "-c", "setsid sleep 100 & sleep 0.3; exit 0")), spawn.Options{
		OnDaemonEnded: func(pid int, comm string) {
			told = append(told, fmt.Sprintf("daemon %d %s", pid, comm))
		},
	})
	if err != nil {
		fmt.Println("supervise:", err)
		os.Exit(2)
	}
	for _, line := range told {
		fmt.Println(line)
	}
	fmt.Println("status", shellStatus(status))
}

// A daemon left by a command that exited 0 is told to the caller's
// OnDaemonEnded, and ended; the library writes nothing to stderr of its
// own: the words are the caller's (tether run prints them), and
// TETHER_DEBUG in a program's environment is tether's binary's to read,
// not the library's.
func TestDaemonEndedTold(t *testing.T) {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(proctest.CleanEnv(), proctest.Mode(modeDaemonHook), proctest.IDVar+"="+proctest.TestID(t), "TETHER_DEBUG=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("helper: %v: %s %s", err, stdout.String(), stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if len(lines) != 2 || lines[1] != "status 0" {
		t.Fatalf("helper printed %q; want one daemon told, then status 0", stdout.String())
	}
	f := strings.Fields(lines[0])
	pid, err := strconv.Atoi(f[1])
	if len(f) != 3 || f[0] != "daemon" || err != nil || f[2] != "sleep" {
		t.Fatalf("told %q; want daemon PID sleep", lines[0])
	}
	if st, err := proc.Host().Stat(pid); err == nil && !st.Zombie() && st.Comm == "sleep" {
		t.Errorf("the daemon %d still runs after Supervise returned", pid)
	}
	if stderr.Len() != 0 {
		t.Errorf("the library wrote to stderr: %q", stderr.String())
	}
}
