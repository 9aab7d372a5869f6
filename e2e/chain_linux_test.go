//go:build linux

package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/proctest"
)

// The caller of tether is a shell that make, or a script's { } group,
// put in between: SIGKILL of make or of the script ends the run, though
// the shell that is tether's parent survives it.
func TestRunChainKilled(t *testing.T) {
	for _, tc := range []struct {
		name   string
		caller func(dir, tetherLine string) *exec.Cmd
	}{
		{"make", func(dir, line string) *exec.Cmd {
			if _, err := exec.LookPath("make"); err != nil {
				t.Skip("no make:", err)
			}
			write(t, filepath.Join(dir, "Makefile"), "serve:\n\tcd "+dir+" && "+strings.ReplaceAll(line, "$", "$$")+"\n")
			return exec.Command("make", "-s", "-C", dir, "serve")
		}},
		{"group", func(dir, line string) *exec.Cmd {
			script := filepath.Join(dir, "script.sh")
			write(t, script, "{ "+line+"; echo exited; } &\nwait\n")
			return exec.Command("/bin/sh", script)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			pidFile := filepath.Join(dir, "pid")
			line := tetherBin + " run -- /bin/sh -c 'echo $$ > " + pidFile + ".new && mv " + pidFile + ".new " + pidFile + " && exec sleep 300'"
			caller := tc.caller(dir, line)
			caller.Env = append(proctest.CleanEnv(), proctest.Env(t)...)
			if err := caller.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan struct{})
			go func() { _ = caller.Wait(); close(done) }()
			pid := readPIDFile(t, pidFile)
			if deadOrZombie(pid) {
				t.Fatalf("command %d not running before its caller was killed", pid)
			}
			_ = caller.Process.Kill()
			<-done
			proctest.Eventually(t, "command gone after make or the script was killed", func() bool { return deadOrZombie(pid) })
			id := proctest.TestID(t)
			proctest.Eventually(t, "every process of the test gone (shells, tether, watchdog)", func() bool {
				left, unsettled := proctest.Alive(id)
				return len(left) == 0 && !unsettled
			})
		})
	}
}

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// readPIDFile waits for a command to write its PID.
func readPIDFile(t *testing.T, path string) int {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(path); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				return pid
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no PID in %s after 10s", path)
	return 0
}

// A watchdog that dies is replaced: a SIGKILL of tether afterwards still
// ends the tree, the grandchild that no parent-death signal reaches too.
func TestRunWatchdogReplaced(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	r := startTether(t, nil, "run", "--grace", "1s", "--", "/bin/sh", "-c",
		"setsid /bin/sh -c 'echo $$ > "+pidFile+".new && mv "+pidFile+".new "+pidFile+" && exec sleep 300' & echo ready; wait")
	if line := r.line(t); line != "ready" {
		t.Fatalf("command printed %q, want ready", line)
	}
	grandchild := readPIDFile(t, pidFile)
	tpid := r.cmd.Process.Pid
	watchdogs := func() []int {
		var out []int
		for _, c := range proc.Host().Children(tpid) {
			if args, _ := proc.Host().Cmdline(c); len(args) > 0 && args[0] == "tether-watchdog" {
				out = append(out, c)
			}
		}
		return out
	}
	first := watchdogs()
	if len(first) != 1 {
		t.Fatalf("tether %d has watchdogs %v, want one", tpid, first)
	}
	// tether's own unreaped child: its PID is still the watchdog's.
	if err := syscall.Kill(first[0], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	proctest.Eventually(t, "a new watchdog in place of the one killed", func() bool {
		now := watchdogs()
		return len(now) == 1 && now[0] != first[0]
	})
	_ = r.cmd.Process.Kill()
	r.wait(t)
	proctest.Eventually(t, "the setsid grandchild ended by the new watchdog", func() bool { return deadOrZombie(grandchild) })
}
