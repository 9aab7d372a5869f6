package e2e

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tetherproc/tether/internal/kill"
	"github.com/tetherproc/tether/internal/pidfd"
	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/proctest"
	"github.com/tetherproc/tether/internal/ptree"
	"github.com/tetherproc/tether/procid"
)

// The library's tests from outside: hostprog (e2e/testdata/hostprog) is a
// Go host program that uses spawn.Host, or spawn.Supervise, beside
// exec.Cmds of its own, built here and run as a process of its own. It
// sits under testdata so that go install ./... leaves it out; go build
// given its path still builds it.

var (
	hostprogOnce sync.Once
	hostprogBin  string
	hostprogErr  error
)

// hostprog builds the host program once, beside tether.
func hostprog(t *testing.T) string {
	t.Helper()
	hostprogOnce.Do(func() {
		hostprogBin = filepath.Join(filepath.Dir(tetherBin), "hostprog")
		args := []string{"build", "-o", hostprogBin}
		if portable {
			args = append(args, "-tags", "tetherportable")
		}
		out, err := exec.Command("go", append(args, "github.com/tetherproc/tether/e2e/testdata/hostprog")...).CombinedOutput()
		if err != nil {
			hostprogErr = err
			t.Logf("go build hostprog: %s", out)
		}
	})
	if hostprogErr != nil {
		t.Fatalf("build hostprog: %v", hostprogErr)
	}
	return hostprogBin
}

// execsReport is hostprog execs's report.
type execsReport struct {
	Runs            int      `json:"runs"`
	Wrong           int      `json:"wrong"`
	ECHILD          int      `json:"echild"`
	Signalled       int      `json:"signalled"`
	Errors          []string `json:"errors"`
	SleepAlive      bool     `json:"sleep_alive"`
	Zombies         int      `json:"zombies"`
	SubreaperBefore int      `json:"subreaper_before"`
	SubreaperAfter  int      `json:"subreaper_after"`
	SigIgnBefore    string   `json:"sigign_before"`
	SigIgnAfter     string   `json:"sigign_after"`
	SigCgtBefore    string   `json:"sigcgt_before"`
	SigCgtAfter     string   `json:"sigcgt_after"`
}

func runExecs(t *testing.T, api string, n string) execsReport {
	t.Helper()
	cmd := exec.Command(hostprog(t), "execs", api, n)
	cmd.Env = append(proctest.CleanEnv(), proctest.Env(t)...)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("hostprog execs %s: %v", api, err)
	}
	var rep execsReport
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("hostprog execs %s: %v: %s", api, err, out)
	}
	t.Logf("%s: %s", api, strings.TrimSpace(string(out)))
	return rep
}

// 500 concurrent exec.Command(...).Run() calls of the host's own (2,000
// with TETHER_LONG; a reaper that steals statuses, as a wait4(-1) beside
// exec.Cmd does, spoils about one call in three) while
// its tethered children run and leave orphans: each gets its own status,
// no Wait fails with ECHILD, none of the host's own processes is
// signalled, and the process is left as it was found.
func TestHostProgramKeepsItsOwnChildren(t *testing.T) {
	n := 500
	if os.Getenv("TETHER_LONG") != "" {
		n = 2000
	}
	for _, api := range []string{"host", "supervise"} {
		t.Run(api, func(t *testing.T) {
			t.Parallel() // each in a program of its own
			rep := runExecs(t, api, strconv.Itoa(n))
			if rep.Runs != n || rep.Wrong != 0 || rep.ECHILD != 0 || rep.Signalled != 0 {
				t.Errorf("%d calls: %d wrong statuses, %d ECHILD, %d signalled: %v", rep.Runs, rep.Wrong, rep.ECHILD, rep.Signalled, rep.Errors)
			}
			if !rep.SleepAlive {
				t.Errorf("the host's own sleep did not outlive the children's stop: %v", rep.Errors)
			}
			if rep.Zombies != 0 {
				t.Errorf("%d orphans of the run left unreaped", rep.Zombies)
			}
			if rep.SubreaperBefore != rep.SubreaperAfter || rep.SigIgnBefore != rep.SigIgnAfter || rep.SigCgtBefore != rep.SigCgtAfter {
				t.Errorf("process state changed: subreaper %d -> %d, SigIgn %s -> %s, SigCgt %s -> %s",
					rep.SubreaperBefore, rep.SubreaperAfter, rep.SigIgnBefore, rep.SigIgnAfter, rep.SigCgtBefore, rep.SigCgtAfter)
			}
		})
	}
	// The control: Supervise as tether run has it (the sole reaper of
	// its process) ends the host's own sleep with its cleanup, which is
	// what the report above would catch.
	t.Run("control", func(t *testing.T) {
		t.Parallel()
		needFull(t, "the subreaper's subtree")
		if rep := runExecs(t, "supervise-sole", "200"); rep.SleepAlive {
			t.Errorf("the control found nothing: the sole reaper spared the host's own sleep")
		}
	})
}

// hostTree starts hostprog tree n and returns it with its children's run
// ids and, for each, its tree: the child, a grandchild in a session of
// its own, and a renamed one.
func hostTree(t *testing.T, args ...string) (cmd *exec.Cmd, stdin io.WriteCloser, lines *bufio.Reader, runs []string, trees map[string][]procid.ID) {
	t.Helper()
	return hostTreeOf(t, hostTreeCmd(t, args...))
}

// hostTreeOf is hostTree of a command made by the caller (under a
// seccomp filter, say).
func hostTreeOf(t *testing.T, cmd *exec.Cmd) (_ *exec.Cmd, stdin io.WriteCloser, lines *bufio.Reader, runs []string, trees map[string][]procid.ID) {
	t.Helper()
	cmd.Stderr = os.Stderr
	stdin, _ = cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	lines = bufio.NewReader(out)
	pids := map[string]int{}
	for {
		line := proctest.ReadLine(t, lines)
		if line == "ready" {
			break
		}
		f := strings.Fields(line)
		if len(f) != 3 || f[0] != "child" {
			t.Fatalf("hostprog: %q", line)
		}
		runs = append(runs, f[2])
		pids[f[2]] = pidsOf(f[1])[0]
	}
	fs := proc.Host()
	trees = map[string][]procid.ID{}
	for _, id := range runs {
		pid := pids[id]
		// The grandchildren: one in a session of its own, one renamed.
		proctest.Eventually(t, "child "+id+" has its two grandchildren", func() bool {
			sub := ptree.Subtree(fs, pid, 0)
			if portable {
				sub = nil
				if snap, err := ptree.ReadSnapshot(fs); err == nil {
					sub = snap.Subtree([]int{pid}, 0, 0)
				}
			}
			renamed, setsid := false, false
			for _, m := range sub {
				args, _ := fs.Cmdline(m.PID)
				st, _ := fs.Stat(m.PID)
				renamed = renamed || len(args) > 0 && strings.HasPrefix(args[0], "hostprog-renamed-")
				setsid = setsid || st.Session == m.PID
			}
			if !renamed || !setsid {
				return false
			}
			st, _ := fs.Stat(pid)
			trees[id] = append([]procid.ID{{PID: pid, StartTime: st.StartTime}}, sub...)
			return true
		})
	}
	return cmd, stdin, lines, runs, trees
}

// alive lists the members of ms that still run (a zombie does not).
func aliveOf(ms []procid.ID) []procid.ID {
	var out []procid.ID
	for _, m := range ms {
		if st, err := proc.Host().Stat(m.PID); err == nil && st.StartTime == m.StartTime && !st.Zombie() {
			out = append(out, m)
		}
	}
	return out
}

// A SIGKILL of the host program, with three children each with a
// grandchild in a session of its own and a renamed one: the host's
// watchdog ends every one of them within 2 s. Also when the watchdog
// itself was killed first and replaced: the new one was told every run.
func TestHostSIGKILLEndsEveryTree(t *testing.T) {
	t.Parallel() // its own ports and runs; it waits more than it works
	t.Run("watchdog", func(t *testing.T) { hostSIGKILL(t, false) })
	t.Run("replaced watchdog", func(t *testing.T) { hostSIGKILL(t, true) })
	// The control: with no watchdog the parent-death signal ends the
	// children alone, and their grandchildren run on.
	t.Run("control", func(t *testing.T) {
		cmd, _, _, _, trees := hostTree(t, "1", "nowatchdog")
		var all []procid.ID
		for _, tree := range trees {
			all = append(all, tree...)
		}
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()
		time.Sleep(500 * time.Millisecond)
		left := aliveOf(all)
		if len(left) == 0 {
			t.Fatal("the control found nothing: the grandchildren went without a watchdog")
		}
		for _, m := range left {
			_ = kill.Signal(m, syscall.SIGKILL) // the test's own: started by its host
		}
	})
}

// hostWatchdogOf is the host program's watchdog: its child that runs
// the watchdog's host mode.
func hostWatchdogOf(host int) int {
	for _, pid := range ptree.Children(proc.Host(), host) {
		if args, _ := proc.Host().Cmdline(pid); len(args) == 3 && args[1] == "tether-watchdog" && args[2] == "host" {
			if st, err := proc.Host().Stat(pid); err == nil && !st.Zombie() {
				return pid
			}
		}
	}
	return 0
}

func hostSIGKILL(t *testing.T, replace bool) {
	cmd, _, _, _, trees := hostTree(t, "3")
	if replace {
		needFull(t, "the children lists of the host")
		first := hostWatchdogOf(cmd.Process.Pid)
		if first == 0 {
			t.Fatal("the host has no watchdog")
		}
		h, err := pidfd.Open(proc.Host(), first)
		if err != nil {
			t.Fatal(err)
		}
		err = h.Signal(syscall.SIGKILL)
		h.Close()
		if err != nil {
			t.Fatal(err)
		}
		proctest.Eventually(t, "a new watchdog", func() bool {
			w := hostWatchdogOf(cmd.Process.Pid)
			return w != 0 && w != first
		})
	}
	var all []procid.ID
	for _, tree := range trees {
		all = append(all, tree...)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	killed := time.Now()
	for time.Since(killed) < 2*time.Second && len(aliveOf(all)) > 0 {
		time.Sleep(10 * time.Millisecond)
	}
	if left := aliveOf(all); len(left) > 0 {
		t.Fatalf("2 s after the host's SIGKILL, %d of its %d children's processes run: %v", len(left), len(all), left)
	}
	t.Logf("%d processes of 3 trees gone %v after the host's SIGKILL", len(all), time.Since(killed).Round(time.Millisecond))
}

// Stop of one child ends its whole tree and leaves the others running;
// Close ends the rest.
func TestHostStopOneChild(t *testing.T) {
	cmd, stdin, lines, runs, trees := hostTreeOf(t, hostTreeCmd(t, "3"))
	stopOneThenClose(t, cmd, stdin, lines, runs, trees)
}

// hostTreeCmd is the host program's tree command with args.
func hostTreeCmd(t *testing.T, args ...string) *exec.Cmd {
	cmd := exec.Command(hostprog(t), append([]string{"tree"}, args...)...)
	cmd.Env = append(proctest.CleanEnv(), proctest.Env(t)...)
	return cmd
}

// stopOneThenClose has the host program (hostTreeOf's) stop its first
// child, whose whole tree must be gone when Stop returns and the
// others' untouched, then close, which must end the rest.
func stopOneThenClose(t *testing.T, cmd *exec.Cmd, stdin io.WriteCloser, lines *bufio.Reader, runs []string, trees map[string][]procid.ID) {
	t.Helper()
	if _, err := io.WriteString(stdin, "stop "+runs[0]+"\n"); err != nil {
		t.Fatal(err)
	}
	if got, want := proctest.ReadLine(t, lines), "stopped "+runs[0]+" <nil>"; got != want {
		t.Fatalf("hostprog said %q, want %q", got, want)
	}
	if left := aliveOf(trees[runs[0]]); len(left) > 0 {
		t.Errorf("Stop returned with %d of the child's tree running: %v", len(left), left)
	}
	for _, id := range runs[1:] {
		if n := len(aliveOf(trees[id])); n != len(trees[id]) {
			t.Errorf("another child's tree lost %d of its %d processes to the Stop", len(trees[id])-n, len(trees[id]))
		}
	}
	if _, err := io.WriteString(stdin, "close\n"); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("hostprog close: %v", err)
	}
	for _, id := range runs[1:] {
		if left := aliveOf(trees[id]); len(left) > 0 {
			t.Errorf("Close returned with %d of a child's tree running: %v", len(left), left)
		}
	}
}
