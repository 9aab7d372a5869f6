package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/proctest"
	"github.com/tetherproc/tether/marker"
	"github.com/tetherproc/tether/procid"
)

// asNobody runs the built binary as uid 65534 under a process limit of
// its own processes (threads count) plus headroom, as a CI machine's
// ulimit -u or a container's pids limit would. It returns the limit too.
func asNobody(t *testing.T, headroom int, args ...string) (*exec.Cmd, int) {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("needs root to run tether as uid 65534 under a process limit")
	}
	prlimit, err := exec.LookPath("prlimit")
	if err != nil {
		t.Skip("no prlimit(1)")
	}
	limit := proc.Host().Threads(65534) + headroom
	cmd := exec.Command(prlimit, append([]string{"--nproc=" + strconv.Itoa(limit), tetherBin}, args...)...)
	cmd.Env = append(proctest.CleanEnv(), proctest.Env(t)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	cmd.Dir = os.TempDir()
	return cmd, limit
}

// wantNoTraceback fails t if a Go traceback or runtime error reached the
// user.
func wantNoTraceback(t *testing.T, what, stderr string) {
	t.Helper()
	for _, sign := range []string{"goroutine ", "runtime: ", "fatal error:", "panic:"} {
		if strings.Contains(stderr, sign) {
			t.Errorf("%s: stderr holds a Go traceback or runtime error (%q), want none:\n%s", what, sign, stderr)
			return
		}
	}
}

// A command that fills the user's process limit with a fork storm: tether
// still ends the whole tree on TERM, exits 143 and prints no traceback.
// Three trials; TestRunForkStormStress runs 20.
func TestRunForkStorm(t *testing.T) { runForkStorm(t, 3) }

func TestRunForkStormStress(t *testing.T) {
	stress(t)
	runForkStorm(t, 20)
}

func runForkStorm(t *testing.T, trials int) {
	// bash retries a fork that fails and goes on storming; dash gives up.
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	for i := 0; i < trials; i++ {
		var stderr strings.Builder
		cmd, limit := asNobody(t, 40, "run", "--grace", "1s", "--", bash, "-c", "while :; do sleep 100 & done 2>/dev/null")
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		// The storm has filled the limit once its forks fail; then TERM.
		var err error
		exited := false
		proctest.Eventually(t, fmt.Sprintf("trial %d: the fork storm to fill the process limit of %d", i, limit), func() bool {
			select {
			case err = <-done:
				exited = true
				return true
			default:
			}
			return proc.Host().Threads(65534) >= limit-2
		})
		if exited {
			t.Fatalf("trial %d: tether exited before TERM: %v; stderr %q", i, err, stderr.String())
		}
		// prlimit execs tether, which keeps its PID.
		_ = cmd.Process.Signal(syscall.SIGTERM)
		err = <-done
		code := cmd.ProcessState.ExitCode()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			code = 128 + int(ws.Signal())
		}
		if code != 143 {
			t.Errorf("trial %d: exit %d (%v), want 143; stderr %q", i, code, err, stderr.String())
		}
		wantNoTraceback(t, fmt.Sprintf("trial %d", i), stderr.String())
		proctest.Eventually(t, "nothing of the storm left", func() bool {
			ids, unsettled := proctest.Alive(proctest.TestID(t))
			return len(ids) == 0 && !unsettled
		})
	}
}

// reclaim waits on every process from one thread: 200 stranded processes
// that ignore TERM, reclaimed by their own user under a limit that leaves
// it 60 threads, are all gone, exit 0, no traceback.
func TestReclaimManyUnderProcessLimit(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to start processes as uid 65534")
	}
	const n = 200
	runID := marker.NewRunID()
	stamp := (marker.Markers{}).Environ(nil, marker.Stamp{Name: "many", Supervisor: procid.ID{PID: 1 << 22, StartTime: 1}, RunID: runID})
	for i := 0; i < n; i++ {
		cmd := exec.Command("/bin/sh", "-c", "trap '' TERM; exec sleep 300")
		cmd.Env = append(append(proctest.CleanEnv(), proctest.Env(t)...), stamp...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() { _ = cmd.Wait() }()
	}
	proctest.Eventually(t, "200 stranded processes ignoring TERM", func() bool {
		ids, _ := proctest.Alive(proctest.TestID(t))
		for _, pid := range ids {
			if st, err := proc.Host().Stat(pid); err != nil || st.Comm != "sleep" {
				return false // not yet past its trap
			}
		}
		return len(ids) == n
	})
	var out, stderr strings.Builder
	cmd, _ := asNobody(t, 60, "reclaim", "--run-id", runID, "--grace", "500ms")
	cmd.Stdout, cmd.Stderr = &out, &stderr
	err := cmd.Run()
	if err != nil || !strings.Contains(out.String(), fmt.Sprintf("reclaimed %d of %d", n, n)) {
		t.Errorf("reclaim of %d under the limit: %v; stdout tail %q, stderr %q; want exit 0, all reclaimed", n, err, tail(out.String()), stderr.String())
	}
	wantNoTraceback(t, "reclaim", stderr.String())
	proctest.Eventually(t, "all 200 gone", func() bool {
		ids, _ := proctest.Alive(proctest.TestID(t))
		return len(ids) == 0
	})
}

func tail(s string) string {
	if len(s) > 300 {
		return s[len(s)-300:]
	}
	return s
}
