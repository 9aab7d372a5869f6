package main

import (
	"bytes"
	"errors"
	"net/netip"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/tetherproc/tether/abandoned"
	"github.com/tetherproc/tether/internal/readiness"
	"github.com/tetherproc/tether/probe"
	"github.com/tetherproc/tether/procid"
	"github.com/tetherproc/tether/reclaim"
)

// The JSON each command prints, made from library values built here and
// rendered by the command's own function and writeJSON, is the file of
// its name in testdata/json, byte for byte: what a script reads does not
// change unnoticed. Regenerate, for a change meant, with
// TETHER_UPDATE_GOLDEN=1 go test -run TestJSONGolden .
func TestJSONGolden(t *testing.T) {
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		v    any
	}{
		{"check", checkJSON(fullReport(), nil)},
		{"check-zero", checkJSON(probe.Report{PID: 4242, Verdict: probe.Gone}, nil)},
		{"check-managed", checkJSON(foreignReport(4300, 0), fullManager())},
		{"check-containers", []any{
			checkJSON(containedReport(&probe.Container{Kind: probe.InPIDNamespace, Init: 4100}), nil),
			checkJSON(containedReport(&probe.Container{Kind: probe.ByRecord, RunID: "fedcba9876543210fedcba9876543210"}), unitManager()),
		}},
		{"ps", psJSON(psEntries(), psOthers())},
		{"ps-empty", psJSON(nil, nil)},
		{"ps-abandoned", abandonedRows(abandonedTrees(now), now)},
		{"ps-abandoned-empty", abandonedRows(nil, now)},
		{"reclaim", reclaimJSON(reclaimed(false))},
		{"reclaim-dry-run", reclaimJSON(reclaimed(true))},
		{"reclaim-nothing", reclaimJSON(newReclaimReport(reclaim.Filter{}, reclaim.Action{}, reclaim.Summary{}))},
		{"reclaim-nothing-port", reclaimJSON(newReclaimReport(reclaim.Filter{Ports: []uint16{8080}}, reclaim.Action{}, reclaim.Summary{Ports: []reclaim.PortState{{Port: 8080, Free: true}}}))},
		{"free", reclaimJSON(freed())},
		{"reclaim-abandoned", abandonedEndsJSON(false, abandonedEnds(now))},
		{"reclaim-abandoned-dry-run", abandonedEndsJSON(true, []abandonedEndJSON{wouldEnd(abandonedTrees(now)[0], now)})},
		{"reclaim-abandoned-nothing", abandonedEndsJSON(false, nil)},
		{"wait", waitJSON(waitReady(), 1234*time.Millisecond)},
		{"wait-timed-out", waitJSON(readiness.Result{}, 30*time.Second)},
		{"wait-pid-gone", waitJSON(waitGone(), 250*time.Millisecond)},
	} {
		t.Run(tc.name, func(t *testing.T) { golden(t, tc.name, tc.v) })
	}
}

// golden compares v as writeJSON writes it with testdata/json/NAME.golden.
func golden(t *testing.T, name string, v any) {
	t.Helper()
	var b bytes.Buffer
	if err := writeJSON(&b, v); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "json", name+".golden")
	if os.Getenv("TETHER_UPDATE_GOLDEN") != "" {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v; generate it with TETHER_UPDATE_GOLDEN=1 go test -run TestJSONGolden .", err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		t.Errorf("%s JSON changed:\n got %s\nwant %s", name, b.Bytes(), want)
	}
}

func intp(n int) *int { return &n }

// fullReport has every field of a report set, its command line with a
// terminal control and characters JSON may escape.
func fullReport() probe.Report {
	return probe.Report{
		PID: 4242, Verdict: probe.Stranded, Tethered: true,
		Why:  probe.Why{Kind: probe.SupervisorEnded},
		PPID: 1, PGID: 4242, UID: intp(1000), StartTime: 8812345, Comm: "server",
		Name: "web", RunID: "0123456789abcdef0123456789abcdef",
		Container:  &probe.Container{Kind: probe.InCgroup, Cgroup: "/user.slice/tether-0123456789abcdef"},
		Supervisor: &probe.SupervisorReport{PID: 1, StartTime: 8800000, State: probe.SupervisorGone, Namespace: 4026532178, HostPID: 4200},
		Command:    []string{"./server", "--port", "8080", "\x1b[2J<&>", "é\u2028"},
	}
}

// noMarker is why a process tether did not start is foreign.
var noMarker = probe.Why{Kind: probe.NoMarker, Var: "TETHER", Want: "1"}

// foreignReport is a process tether did not start, root's when uid is 0.
func foreignReport(pid, uid int) probe.Report {
	return probe.Report{
		PID: pid, Verdict: probe.Foreign, Why: noMarker,
		PPID: 1, PGID: pid, UID: intp(uid), StartTime: 900, Comm: "nginx",
		Command: []string{"nginx: master process", "", ""},
	}
}

// containedReport is a supervised process known by its container.
func containedReport(c *probe.Container) probe.Report {
	return probe.Report{
		PID: 4301, Verdict: probe.Supervised, Tethered: true, PPID: 4300, UID: intp(0), Comm: "worker",
		Name: "db", RunID: "fedcba9876543210fedcba9876543210", Container: c,
		Supervisor: &probe.SupervisorReport{PID: 4100, StartTime: 77, State: probe.SupervisorAlive},
	}
}

// fullManager has every field of a manager set.
func fullManager() *reclaim.Manager {
	return &reclaim.Manager{
		Kind: reclaim.ByContainer, Engine: reclaim.Docker, ID: "8e3f1371fb44aa55", Name: "tb1", Image: "bb:1",
		Project: "shop", Service: "api", User: true, Rootless: true, UID: 1000, Proxy: true,
		Helper: "docker-proxy", Daemon: 321, Socket: "/run/user/1000/docker.sock",
		Unreachable: errors.New("never printed"),
	}
}

func unitManager() *reclaim.Manager {
	return &reclaim.Manager{Kind: reclaim.ByUnit, Name: "nginx.service"}
}

func listener(proto, addr string, port uint16) reclaim.Listener {
	return reclaim.Listener{Proto: proto, Addr: netip.MustParseAddr(addr), Port: port, UID: 1000, Inode: 5555}
}

func psEntries() []psEntry {
	return []psEntry{
		{Process: reclaim.Process{Report: fullReport(), Ports: []reclaim.Listener{listener("tcp", "0.0.0.0", 8080), listener("udp", "::", 5353)}}, AgeSeconds: 3600},
		{Process: reclaim.Process{Report: foreignReport(1, 0), Protected: reclaim.ProtectedPID1, Manager: unitManager()}},
		{Process: reclaim.Process{Report: containedReport(&probe.Container{Kind: probe.InPIDNamespace, Init: 4100})}, AgeSeconds: 7},
	}
}

func psOthers() []psOther {
	return []psOther{
		{OtherHolder: reclaim.OtherHolder{Port: 8080, PID: 77, UID: 1001, Excluded: reclaim.OtherUser}, Why: "held by PID 77 of uid 1001: --any-user to see it"},
		{OtherHolder: reclaim.OtherHolder{Port: 8081, UID: 0, Excluded: reclaim.OutOfSight}, Why: "held by a process of uid 0, out of sight: run as root to see it"},
	}
}

func abandonedTrees(now time.Time) []abandoned.Tree {
	return []abandoned.Tree{
		{
			Root: procid.ID{PID: 100, StartTime: 5555}, Started: now.Add(-2 * time.Hour),
			Members: []abandoned.Member{
				{ID: procid.ID{PID: 100, StartTime: 5555}, PPID: 1, UID: 1000, Comm: "npm exec node d", Command: []string{"npm", "exec", "mcp-server\x07", "  "}, Resident: 1 << 20},
				{ID: procid.ID{PID: 101, StartTime: 5556}, PPID: 100, UID: 1000, Comm: "node", Resident: 2048},
			},
			Ports: []reclaim.Listener{listener("tcp", "127.0.0.1", 3000)},
		},
		{Root: procid.ID{PID: 200, StartTime: 6000}},
	}
}

func abandonedEnds(now time.Time) []abandonedEndJSON {
	trees := abandonedTrees(now)
	left := []procid.ID{{PID: 101, StartTime: 5556}}
	var rows []abandonedEndJSON
	for _, e := range []abandoned.Ended{
		{Tree: trees[0], Ended: true},
		{Tree: trees[1], Gone: true},
		{Tree: trees[0], NoLonger: abandoned.LivePeer},
		{Tree: trees[0], Err: errors.New("operation not permitted"), Left: left},
		{Tree: trees[0], Left: left},
	} {
		rows = append(rows, endRow(e, now))
	}
	return rows
}

// reclaimResults are a result of each outcome, with the reasons and
// causes the library gives them.
func reclaimResults() []reclaim.Result {
	sum := reclaim.Summary{Results: []reclaim.Result{
		{Process: reclaim.Process{Report: fullReport(), Ports: []reclaim.Listener{listener("tcp", "0.0.0.0", 8080)}}, Selected: true, Outcome: reclaim.Gone,
			Signals: []reclaim.Sent{{Signal: syscall.SIGTERM}, {Signal: syscall.SIGKILL}}},
		{Process: reclaim.Process{Report: containedReport(nil)}, Selected: true, Outcome: reclaim.Survived, Cause: reclaim.Cause{Kind: reclaim.KillIgnored, After: 10 * time.Second},
			Signals: []reclaim.Sent{{Signal: syscall.SIGTERM, ToSupervisor: true}, {Signal: syscall.SIGKILL}}},
		{Process: reclaim.Process{Report: foreignReport(4300, 1000), Ports: []reclaim.Listener{listener("tcp", "::1", 8081)}}, Outcome: reclaim.Skipped,
			Excluded: reclaim.ForeignHolder},
		{Process: reclaim.Process{Report: foreignReport(4310, 0), Manager: fullManager()}, Selected: true, Outcome: reclaim.Gone,
			Signals: []reclaim.Sent{{Engine: reclaim.Docker}}},
		{Process: reclaim.Process{Report: foreignReport(1, 0), Protected: reclaim.ProtectedPID1}, Outcome: reclaim.Skipped, Excluded: reclaim.Protected},
		{Process: reclaim.Process{Report: fullReport()}, Selected: true, Outcome: reclaim.Failed, Cause: reclaim.Cause{Kind: reclaim.SignalFailed, Err: syscall.EPERM}},
		{Process: reclaim.Process{Report: fullReport()}, Selected: true, Outcome: reclaim.Changed, Cause: reclaim.Cause{Kind: reclaim.StartChanged, Was: 8812345, Now: 999}},
		{Process: reclaim.Process{Report: containedReport(nil)}, Selected: true, Outcome: reclaim.AlreadyGone},
	}}
	return sum.Results
}

// reclaimPorts are a free port, and one held for each reason a holder
// is left, taken again among them.
func reclaimPorts() []reclaim.PortState {
	return []reclaim.PortState{
		{Port: 8080, Free: true},
		{
			Port: 8081, Holders: []int{4300, 4320, 4330, 4340}, Hidden: []int{0, 1001},
			Left: []reclaim.LeftHolder{
				{Why: reclaim.LeftTookAgain, PID: 4340},
				{Why: reclaim.LeftNotEnded, PID: 4242},
				{Why: reclaim.LeftNotSelected, PID: 4300},
				{Why: reclaim.LeftBoundMeanwhile, PID: 4330},
				{Why: reclaim.LeftOutOfSight, UID: intp(0)},
				{Why: reclaim.LeftOutOfSight, UID: intp(1001)},
			},
			Again: []reclaim.Retaker{
				{PID: 4340, Command: []string{"./server"}, After: 120 * time.Millisecond, Parent: 4339,
					ParentCommand: []string{"sh", "-c", "while :; do ./server; done"}, Manager: unitManager()},
				{PID: 4341},
			},
		},
	}
}

func reclaimed(dry bool) reclaimReport {
	sum := reclaim.Summary{Results: reclaimResults(), Ports: reclaimPorts()}
	if dry {
		for i := range sum.Results {
			if sum.Results[i].Selected {
				sum.Results[i].Outcome, sum.Results[i].Cause, sum.Results[i].Signals = reclaim.WouldSignal, reclaim.Cause{}, nil
			}
		}
	}
	return newReclaimReport(reclaim.Filter{Ports: []uint16{8080, 8081}}, reclaim.Action{DryRun: dry}, sum)
}

// freed is tether free 8080's report: the foreign holder gone.
func freed() reclaimReport {
	sum := reclaim.Summary{
		Results: []reclaim.Result{{Process: reclaim.Process{Report: foreignReport(4300, 1000), Ports: []reclaim.Listener{listener("tcp", "0.0.0.0", 8080)}},
			Selected: true, Outcome: reclaim.Gone, Signals: []reclaim.Sent{{Signal: syscall.SIGTERM}}}},
		Ports: []reclaim.PortState{{Port: 8080, Free: true}},
	}
	return newReclaimReport(reclaim.Filter{Ports: []uint16{8080}, Foreign: true}, reclaim.Action{}, sum)
}

func waitReady() readiness.Result {
	return readiness.Result{
		Ready: true,
		Ports: []readiness.Port{{
			Port: 8080, Ready: true,
			Listeners:    []reclaim.Listener{listener("tcp", "127.0.0.1", 8080), listener("tcp", "::", 8080)},
			Holders:      []readiness.Holder{{Report: fullReport(), Ports: []reclaim.Listener{listener("tcp", "127.0.0.1", 8080), listener("udp", "0.0.0.0", 9000)}}},
			Others:       []readiness.Holder{{Report: foreignReport(1, 0), Protected: reclaim.ProtectedPID1}},
			HiddenOwners: []int{0},
			URL:          "http://127.0.0.1:8080/health?full=1&x=<y>", HTTPStatus: 200,
		}},
		Targets: []readiness.Target{
			{Kind: "tcp", Name: "db:5432", Ready: true, Detail: "accepted at 172.18.0.2:5432"},
			{Kind: "http", Name: "https://localhost:8443/", Ready: true, Detail: "answered 204", HTTPStatus: 204},
			{Kind: "file", Name: "/tmp/ready"},
		},
	}
}

func waitGone() readiness.Result {
	return readiness.Result{
		PIDGone: true,
		Ports: []readiness.Port{
			{Port: 8080, Free: true, HTTPError: "no listener"},
			{Port: 8081, HiddenOwners: []int{1001}},
		},
		Targets: []readiness.Target{{Kind: "socket", Name: "/run/app.sock", Detail: "connection refused"}},
	}
}
