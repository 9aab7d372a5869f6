package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/tetherproc/tether/internal/proctest"
	"github.com/tetherproc/tether/marker"
)

func TestReclaimAndPSBadInput(t *testing.T) {
	tests := []struct {
		args []string
		bad  string
	}{
		{[]string{"reclaim", "--port", "0"}, `"0"`},
		{[]string{"reclaim", "--port", "70000"}, `"70000"`},
		{[]string{"reclaim", "--port", "abc"}, `"abc"`},
		{[]string{"reclaim", "--port", "-1"}, `"-1"`},
		{[]string{"reclaim", "--grace", "soon"}, `"soon"`},
		{[]string{"reclaim", "--grace", "-5s"}, "-5s"},
		{[]string{"reclaim", "--signal", "NOPE"}, `"NOPE"`},
		{[]string{"reclaim", "--run-id", "xyz"}, `"xyz"`},
		{[]string{"reclaim", "--run-id", strings.Repeat("A", 32)}, strings.Repeat("A", 32)},
		{[]string{"reclaim", "--name", "a=b"}, `"a=b"`},
		{[]string{"reclaim", "--name", ""}, `""`},
		{[]string{"reclaim", "extra"}, `"extra"`},
		{[]string{"reclaim", "--frob"}, "frob"},
		{[]string{"ps", "--port", "65536"}, `"65536"`},
		{[]string{"ps", "--run-id", "12"}, `"12"`},
		{[]string{"ps", "extra"}, `"extra"`},
		{[]string{"run", "--port", "0", "--", "true"}, `"0"`},
		{[]string{"run", "--port", "http", "--", "true"}, `"http"`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			wantUsage(t, tether(t, nil, tt.args...), tt.bad)
		})
	}
}

type reclaimJSON struct {
	DryRun  bool `json:"dry_run"`
	Results []struct {
		PID      int      `json:"pid"`
		Verdict  string   `json:"verdict"`
		Selected bool     `json:"selected"`
		Outcome  string   `json:"outcome"`
		Why      string   `json:"why"`
		Signals  []string `json:"signals"`
		Ports    []struct {
			Proto string `json:"proto"`
			Port  int    `json:"port"`
		} `json:"ports"`
	} `json:"results"`
	Ports []struct {
		Port    int   `json:"port"`
		Free    bool  `json:"free"`
		Holders []int `json:"holders"`
	} `json:"ports"`
}

// modeListen listens on a loopback TCP port, prints it and waits for
// stdin to close.
var modeListen = proctest.Register("listen", func() {
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	fmt.Println(l.Addr().(*net.TCPAddr).Port)
	_, _ = io.Copy(io.Discard, os.Stdin)
})

// startListener starts a listener helper with env and returns it and its port.
func startListener(t *testing.T, env []string) (*proctest.Proc, string) {
	t.Helper()
	return proctest.StartLine(t, modeListen, proctest.Spec{Env: env})
}

func strandedEnv(t *testing.T, name, runID string) []string {
	t.Helper()
	dead := selfSupervisor(t)
	dead.StartTime++ // the test's PID with another start time: a recycled supervisor
	return (marker.Markers{}).Environ(nil, marker.Stamp{Name: name, Supervisor: dead, RunID: runID})
}

// Freeing a stuck port by hand: dry run, then the real thing.
func TestReclaimPortCLI(t *testing.T) {
	runID := marker.NewRunID()
	p, port := startListener(t, strandedEnv(t, "web", runID))
	ps := tether(t, nil, "ps", "--run-id", runID)
	if ps.code != 0 || !strings.Contains(ps.stdout, "stranded") || !strings.Contains(ps.stdout, "tcp/"+port) {
		t.Errorf("ps: %+v; want exit 0 and a stranded process on tcp/%s", ps, port)
	}
	var list []struct {
		PID     int    `json:"pid"`
		Verdict string `json:"verdict"`
		Name    string `json:"name"`
		Age     *int64 `json:"age_seconds"`
	}
	r := tether(t, nil, "ps", "--json", "--run-id", runID)
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil || len(list) != 1 || list[0].PID != p.PID() || list[0].Name != "web" || list[0].Age == nil {
		t.Errorf("ps --json: %v %+v %q; want one entry: PID %d, name web, with an age", err, list, r.stdout, p.PID())
	}

	var rep reclaimJSON
	r = tether(t, nil, "reclaim", "--dry-run", "--json", "--port", port, "--run-id", runID)
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || r.code != 0 || !rep.DryRun || len(rep.Results) != 1 ||
		rep.Results[0].Outcome != "would-signal" || len(rep.Ports) != 1 || rep.Ports[0].Free {
		t.Fatalf("dry run: %v %+v %+v; want exit 0, one result that would-signal, port %s not free", err, r, rep, port)
	}
	r = tether(t, nil, "reclaim", "--json", "--port", port, "--run-id", runID)
	rep = reclaimJSON{}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || r.code != 0 || len(rep.Results) != 1 ||
		rep.Results[0].Outcome != "gone" || rep.Results[0].PID != p.PID() || !rep.Ports[0].Free {
		t.Fatalf("reclaim: %v %+v %+v; want exit 0, PID %d gone, port %s free", err, r, rep, p.PID(), port)
	}
	waitGone(t, p, "the reclaimed listener")
	r = tether(t, nil, "reclaim", "--run-id", runID)
	if r.code != 0 || !strings.Contains(r.stdout, "nothing to reclaim") {
		t.Errorf("second reclaim: %+v; want exit 0 and \"nothing to reclaim\"", r)
	}
}

// tether run --port refuses a foreign holder and signals nothing; it
// reclaims a stranded tethered holder and starts the command.
func TestRunPort(t *testing.T) {
	foreign, port := startListener(t, nil)
	r := tether(t, nil, "run", "--port", port, "--", "/bin/true")
	wantUsage(t, r, port)
	if !strings.Contains(r.stderr, strconv.Itoa(foreign.PID())) || !strings.Contains(r.stderr, "foreign") {
		t.Errorf("refusal %q, want it to name the foreign holder %d", r.stderr, foreign.PID())
	}
	wantRunning(t, foreign, "the foreign holder")

	supervised, sport := startListener(t, (marker.Markers{}).Environ(nil, marker.Stamp{Name: "web", Supervisor: selfSupervisor(t), RunID: marker.NewRunID()}))
	r = tether(t, nil, "run", "--port", sport, "--", "/bin/true")
	wantUsage(t, r, sport)
	if !strings.Contains(r.stderr, "supervised") {
		t.Errorf("refusal %q, want it to say the holder is supervised", r.stderr)
	}
	wantRunning(t, supervised, "the supervised holder")

	stranded, stport := startListener(t, strandedEnv(t, "web", marker.NewRunID()))
	r = tether(t, nil, "run", "--port", stport, "--", "/bin/sh", "-c", "echo started")
	if r.code != 0 || r.stdout != "started\n" {
		t.Fatalf("%+v; want exit 0 and stdout \"started\"", r)
	}
	waitGone(t, stranded, "the stranded holder")
}
