package e2e

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/tetherproc/tether/marker"
)

// Many tether runs side by side while reclaim runs again and again: no
// supervised process is ever signalled. A few runs;
// TestConcurrentRunsSurviveReclaimLoopStress runs 100.
func TestConcurrentRunsSurviveReclaimLoop(t *testing.T) { concurrentRunsSurviveReclaimLoop(t, 3) }

func TestConcurrentRunsSurviveReclaimLoopStress(t *testing.T) {
	stress(t)
	concurrentRunsSurviveReclaimLoop(t, 100)
}

func concurrentRunsSurviveReclaimLoop(t *testing.T, n int) {
	name := "rel-" + marker.NewRunID()[:8]
	runs := make([]*running, n)
	children := make([]int, n)
	var wg sync.WaitGroup
	for i := range runs {
		runs[i] = startTether(t, helperEnv(modeSelf, "PROCTEST_STAY=1"), "run", "--name", name, "--", os.Args[0])
	}
	errs := make([]error, n)
	for i, tr := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Not tr.line(t) or readSelf(t, ...): t.Fatal may only be
			// called from the test's own goroutine.
			line, err := tr.readLine()
			if err == nil {
				var s self
				s, err = parseSelf(line)
				children[i] = s.PID
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("run %d: %v", i, err)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	for round := 0; round < 10; round++ {
		// Default selection (stranded only) and --all --dry-run: the
		// first must pass over every one of them, the second signal none.
		for _, args := range [][]string{{"reclaim", "--name", name}, {"reclaim", "--all", "--dry-run", "--name", name}} {
			r := tether(t, nil, args...)
			if r.code != 0 {
				t.Fatalf("round %d: %v: %+v; want exit 0", round, args, r)
			}
		}
	}
	for i, tr := range runs {
		select {
		case <-tr.done:
			t.Errorf("tether %d exited (%d): its command was signalled", tr.cmd.Process.Pid, tr.code)
		default:
		}
		if children[i] == 0 || deadOrZombie(children[i]) {
			t.Errorf("command %d of tether %d is gone, want it running", children[i], tr.cmd.Process.Pid)
		}
	}
	t.Logf("%d runs, %d reclaim rounds: none signalled", n, 10)
	for _, tr := range runs {
		_ = tr.cmd.Process.Signal(syscall.SIGTERM)
	}
	for _, tr := range runs {
		tr.wait(t)
	}
}

// What another user's /proc entries hide is unverifiable, and never
// signalled: reclaim run as uid 65534 passes over a root process that is
// stamped and stranded. By run id that is "none matched" (exit 0); by
// port it is a port still held (exit 1), by a process out of sight.
func TestReclaimAsOtherUserSignalsNothing(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to run tether as uid 65534")
	}
	runID := marker.NewRunID()
	p, port := startListener(t, strandedEnv(t, "web", runID))
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"reclaim", "--any-user", "--all", "--run-id", runID}, 0},
		{[]string{"reclaim", "--any-user", "--all", "--port", port}, 1},
		{[]string{"reclaim", "--any-user", "--all", "--foreign", "--port", port}, 1},
	} {
		cmd := exec.Command(tetherBin, tc.args...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		cmd.Dir = "/"
		r := tetherCmd(t, cmd, nil)
		if r.code != tc.code {
			t.Errorf("%v as uid 65534: %+v; want exit %d", tc.args, r, tc.code)
		}
	}
	cmd := exec.Command(tetherBin, "check", "--json", strconv.Itoa(p.PID()))
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	cmd.Dir = "/"
	if r := tetherCmd(t, cmd, nil); r.code != 4 {
		t.Errorf("check as uid 65534: exit %d, want 4 (unverifiable): %s", r.code, r.stdout)
	}
	wantRunning(t, p, "the root process reclaim as uid 65534 cannot verify")
}

// A port whose holder tether cannot see (another user's process) is not
// "free": reclaim --port says so with exit 1, and tether run --port
// refuses it.
func TestHiddenHolderIsNotFree(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to run tether as uid 65534")
	}
	p, port := startListener(t, nil)
	asNobody := func(args ...string) result {
		cmd := exec.Command(tetherBin, args...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		cmd.Dir = "/"
		return tetherCmd(t, cmd, nil)
	}
	r := asNobody("reclaim", "--port", port)
	if r.code != 1 || !strings.Contains(r.stdout, "port "+port+": held by a process of uid 0 that tether cannot see") {
		t.Errorf("reclaim: %+v; want exit 1 (the port is held) and \"port %s: held by a process of uid 0 that tether cannot see\"", r, port)
	}
	r = asNobody("run", "--port", port, "--", "/bin/true")
	wantUsage(t, r, port)
	wantRunning(t, p, "the hidden holder")
}
