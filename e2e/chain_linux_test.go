//go:build linux

package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/proctest"
	"github.com/tetherproc/tether/internal/ptree"
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
	watchdogs := func() []int { return watchdogsOf(tpid) }
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

// watchdogsOf lists the watchdogs among the children of tether tpid.
func watchdogsOf(tpid int) []int {
	var out []int
	for _, c := range ptree.Children(proc.Host(), tpid) {
		if args, _ := proc.Host().Cmdline(c); len(args) > 0 && args[0] == "tether-watchdog" {
			out = append(out, c)
		}
	}
	return out
}

// A watchdog that dies while the command's tree is being ended is
// replaced, and its replacement, a new child of tether, is not of the
// tree: the cleanup never signals it, and no third watchdog is started.
func TestRunWatchdogReplacedDuringCleanup(t *testing.T) {
	dir := t.TempDir()
	pidFile, goFile := filepath.Join(dir, "pid"), filepath.Join(dir, "go")
	r := startTether(t, []string{"TETHER_DEBUG=1"}, "run", "--grace", "2s", "--", "/bin/sh", "-c",
		"setsid /bin/sh -c 'trap \"\" TERM; echo $$ > "+pidFile+".new && mv "+pidFile+".new "+pidFile+" && exec sleep 300' & "+
			"echo $$; while [ ! -e "+goFile+" ]; do sleep 0.02; done")
	command, err := strconv.Atoi(r.line(t))
	if err != nil {
		t.Fatalf("command printed no PID: %v", err)
	}
	grandchild := readPIDFile(t, pidFile)
	proctest.Eventually(t, "the grandchild to run sleep, TERM ignored", func() bool {
		st, err := proc.Host().Stat(grandchild)
		return err == nil && st.Comm == "sleep"
	})
	tpid := r.cmd.Process.Pid
	first := watchdogsOf(tpid)
	if len(first) != 1 {
		t.Fatalf("tether %d has watchdogs %v, want one", tpid, first)
	}
	// The command exits 0: the cleanup's grace begins, which the
	// grandchild outlasts.
	if err := os.WriteFile(goFile, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	proctest.Eventually(t, "the command gone", func() bool { return deadOrZombie(command) })
	if err := syscall.Kill(first[0], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	var second int
	proctest.Eventually(t, "a new watchdog in place of the one killed", func() bool {
		now := watchdogsOf(tpid)
		if len(now) == 1 && now[0] != first[0] {
			second = now[0]
			return true
		}
		return false
	})
	if code := r.wait(t); code != 0 {
		t.Errorf("tether exited %d, want the command's 0", code)
	}
	if !deadOrZombie(grandchild) {
		t.Errorf("grandchild %d alive after tether exited", grandchild)
	}
	trace := r.errOut.String()
	signalled := regexp.MustCompile(`(?m)(TERM|KILL) to ` + strconv.Itoa(second) + `$`)
	if m := signalled.FindString(trace); m != "" {
		t.Errorf("the cleanup signalled the new watchdog %d (%q); trace:\n%s", second, m, trace)
	}
	if n := strings.Count(trace, "replaced by"); n != 1 {
		t.Errorf("%d watchdogs replaced, want 1; trace:\n%s", n, trace)
	}
}
