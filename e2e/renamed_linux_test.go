package e2e

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/tetherproc/tether/internal/kill"
	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/proctest"
	"github.com/tetherproc/tether/internal/ptree"
	"github.com/tetherproc/tether/procid"
)

// modeRenamers starts three descendants that no environment scan can
// find, each in a session of its own: one that wrote its title over its
// environment (setproctitle), one started with an empty environment, and,
// where there is perl, one renamed with $0. It prints their PIDs on one
// line, then exits with PROCTEST_STATUS or, with PROCTEST_STAY set, stays.
var modeRenamers = proctest.Starts(proctest.Register("renamers", func() {
	var cmds []*exec.Cmd
	retitled := exec.Command(os.Args[0])
	retitled.Env = append(os.Environ(), proctest.Mode(proctest.Retitle), "PROCTEST_STAY=1", "PROCTEST_TITLE=srv: worker")
	cleared := exec.Command("/bin/sh", "-c", "echo $$; exec sleep 120")
	cleared.Env = []string{}
	cmds = append(cmds, retitled, cleared)
	if perl, err := exec.LookPath("perl"); err == nil {
		cmds = append(cmds, exec.Command(perl, "-e", `$0 = "srv"; $| = 1; print "$$\n"; sleep 120`))
	}
	var pids []string
	for _, cmd := range cmds {
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		out, err := cmd.StdoutPipe()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		if err := cmd.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		line, _ := bufio.NewReader(out).ReadString('\n')
		pids = append(pids, strings.TrimSpace(line))
	}
	fmt.Println(strings.Join(pids, " "))
	if os.Getenv("PROCTEST_STAY") != "" {
		forever()
	}
	code, _ := strconv.Atoi(os.Getenv("PROCTEST_STATUS"))
	os.Exit(code)
}), proctest.Retitle)

// members names the processes whose PIDs a helper printed, with their
// start times, and ends, at cleanup, those still alive: no leak check
// can find them by their environment.
func members(t *testing.T, line string) []procid.ID {
	t.Helper()
	var ms []procid.ID
	for _, pid := range pidsOf(line) {
		st, err := proc.Host().Stat(pid)
		if err != nil {
			t.Fatalf("descendant %d: %v; want it running", pid, err)
		}
		ms = append(ms, procid.ID{PID: pid, StartTime: st.StartTime})
	}
	if len(ms) < 2 {
		t.Fatalf("helper printed %q, want at least two PIDs", line)
	}
	t.Cleanup(func() {
		for _, m := range ms {
			_ = kill.Signal(m, syscall.SIGKILL)
		}
	})
	return ms
}

func wantEnded(t *testing.T, ms []procid.ID, when string) {
	t.Helper()
	for _, m := range ms {
		proctest.Eventually(t, when+": descendant "+itoa(m.PID)+" ended", func() bool {
			st, err := proc.Host().Stat(m.PID)
			return err != nil || st.StartTime != m.StartTime || st.Zombie()
		})
	}
}

// While tether lives, its cleanup does not depend on the environment: a
// renamed or env-cleared descendant in a session of its own is ended when
// tether gets TERM. (That they are ended when the command exits is
// Supervise's cleanup, tested in spawn: TestSuperviseEndsWhatTheCommandLeft.)
func TestRunEndsRenamedDescendants(t *testing.T) {
	r := startTether(t, helperEnv(modeRenamers, "PROCTEST_STAY=1"), "run", "--grace", "1s", "--", os.Args[0])
	ms := members(t, r.line(t))
	if err := r.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := r.wait(t); code != 143 {
		t.Errorf("exit %d, want 143 (stderr %q)", code, r.errOut.String())
	}
	wantEnded(t, ms, "after tether got TERM")
}
func itoa(n int) string { return strconv.Itoa(n) }

// When tether itself is killed with SIGKILL, its watchdog ends the
// descendants that no environment scan can find from the list of the
// tree the supervisor keeps for it, once they are on that list.
func TestRunSIGKILLEndsRenamedDescendants(t *testing.T) {
	r := startTether(t, helperEnv(modeRenamers, "PROCTEST_STAY=1"), "run", "--grace", "1s", "--", os.Args[0])
	ms := members(t, r.line(t))
	tpid := r.cmd.Process.Pid
	var list string
	proctest.Eventually(t, "the renamed descendants on the watchdog's list", func() bool {
		for _, c := range ptree.Children(proc.Host(), tpid) {
			args, _ := proc.Host().Cmdline(c)
			if len(args) > 0 && args[0] == "tether-watchdog" {
				data, _ := os.ReadFile("/proc/" + itoa(c) + "/fd/5")
				list = string(data)
			}
		}
		for _, m := range ms {
			if !strings.Contains(list, itoa(m.PID)+" ") {
				return false
			}
		}
		return true
	})
	if err := r.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	r.wait(t)
	wantEnded(t, ms, "after tether was killed with SIGKILL")
}

// ps shows the renamed descendants of a live tether with the tethered
// processes of the run: unverifiable while no record names them, and
// supervised once their tether's record does (it writes the tree down at
// its first tick, 250 ms in, which a slow start of the helper, as under
// the race detector, may let come first). (The one started with an
// empty environment is foreign, and not listed.)
func TestPSShowsRenamedDescendants(t *testing.T) {
	name := "ren-" + itoa(os.Getpid())
	r := startTether(t, helperEnv(modeRenamers, "PROCTEST_STAY=1"), "run", "--name", name, "--", os.Args[0])
	ms := members(t, r.line(t))
	out := tether(t, nil, "ps", "--name", name).stdout
	for i, m := range ms {
		if i == 1 {
			continue // the env-cleared one
		}
		row := ""
		for _, line := range strings.Split(out, "\n") {
			if f := strings.Fields(line); len(f) > 4 && f[0] == itoa(m.PID) {
				row = line
			}
		}
		if !strings.Contains(row, "unverifiable") && !strings.Contains(row, "supervised") {
			t.Errorf("ps --name %s: row of renamed descendant %d is %q; want it listed, unverifiable or supervised\n%s", name, m.PID, row, out)
		}
	}
}
