package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/tetherproc/tether/internal/proctest"
	"github.com/tetherproc/tether/marker"
	"github.com/tetherproc/tether/probe"
)

// Small contradictions of the command line, each as a user meets it.
func TestCommandLineContradictions(t *testing.T) {
	t.Run("a port given twice", func(t *testing.T) {
		r := tether(t, nil, "reclaim", "--dry-run", "--port", "1", "--port", "1")
		if r.code != 0 || strings.Count(r.stdout, "port 1:") != 1 {
			t.Errorf("exit %d, %q; want port 1 reported once", r.code, r.stdout)
		}
	})
	t.Run("empty or protocol variable names", func(t *testing.T) {
		wantUsage(t, tether(t, nil, "check", "--marker-var", "", "1"), "--marker-var")
		wantUsage(t, tether(t, nil, "ps", "--name-var", "TETHER_RUN_ID"), "TETHER_RUN_ID")
		wantUsage(t, tether(t, nil, "reclaim", "--marker-var", "TETHER_SUPERVISOR"), "TETHER_SUPERVISOR")
	})
	t.Run("an unknown global flag", func(t *testing.T) {
		r := tether(t, nil, "--bogus")
		wantUsage(t, r, "-bogus")
		if strings.HasPrefix(r.stderr, "tether tether") {
			t.Errorf("stderr %q; want the program named once", r.stderr)
		}
	})
	t.Run("flags after check's PID", func(t *testing.T) {
		r := tether(t, nil, "check", "1", "--json")
		wantUsage(t, r, "--json")
		if !strings.Contains(r.stderr, "flags go before the PID") {
			t.Errorf("stderr %q; want it to say that flags go before the PID", r.stderr)
		}
	})
	t.Run("help to a full disk", func(t *testing.T) {
		full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
		if err != nil {
			t.Skip("no /dev/full")
		}
		defer full.Close()
		cmd := exec.Command(tetherBin, "--help")
		cmd.Stdout = full
		err = cmd.Run()
		if code := cmd.ProcessState.ExitCode(); code != exitFailed {
			t.Errorf("tether --help >/dev/full: %v, exit %d; want %d", err, code, exitFailed)
		}
	})
}

// run --port refusing a supervised holder does not suggest reclaim's
// --all, which run does not have.
func TestRunPortRefusalHasNoReclaimHint(t *testing.T) {
	sup, err := proctest.SupervisorOf(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	env := (marker.Markers{}).Environ(nil, marker.Stamp{Name: "held", Supervisor: sup, RunID: marker.NewRunID()})
	pr, pw := pipe(t)
	proctest.Start(t, modeListen, proctest.Spec{Env: append(env, "PROCTEST_LISTEN=tcp4"), Stdout: pw})
	pw.Close()
	port := proctest.ReadLine(t, pr)
	r := tether(t, nil, "run", "--port", port, "--", "true")
	if r.code != exitFailed || !strings.Contains(r.stderr, "supervised") || strings.Contains(r.stderr, "--all") {
		t.Errorf("run --port %s held by a supervised process: exit %d, %q; want 125, supervised, no --all", port, r.code, r.stderr)
	}
}

// ps --port answers "who holds it, and is it ours?" whoever it is: a
// foreign holder is listed, with its verdict.
func TestPSPortShowsForeignHolder(t *testing.T) {
	pr, pw := pipe(t)
	p := proctest.Start(t, modeListen, proctest.Spec{Env: []string{"PROCTEST_LISTEN=tcp4"}, Stdout: pw})
	pw.Close()
	port := proctest.ReadLine(t, pr)
	r := tether(t, nil, "ps", "--port", port)
	if r.code != 0 || !strings.Contains(r.stdout, strconv.Itoa(p.PID())) || !strings.Contains(r.stdout, "foreign") {
		t.Errorf("ps --port %s: exit %d, %q; want the foreign holder %d listed as foreign", port, r.code, r.stdout, p.PID())
	}
	r = tether(t, nil, "ps", "--json", "--port", port)
	var rows []checkReport
	if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil || len(rows) != 1 || rows[0].PID != p.PID() || rows[0].Verdict != probe.Foreign {
		t.Errorf("ps --json --port %s: %v, %q; want one row, %d, foreign", port, err, r.stdout, p.PID())
	}
}
