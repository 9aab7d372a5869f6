package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tetherproc/tether/probe"
	"github.com/tetherproc/tether/reclaim"
)

// The text each command prints for library values built here, rendered
// by the command's own function, is the file of its name in
// testdata/text, byte for byte: the words of a reclaim's results do not
// change unnoticed. Regenerate, for a change meant, with
// TETHER_UPDATE_GOLDEN=1 go test -run TestTextGolden .
func TestTextGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		text func() string
	}{
		{"reclaim", func() string { return reclaimText(reclaimed(false)) }},
		{"reclaim-dry-run", func() string { return reclaimText(reclaimed(true)) }},
		{"reclaim-nothing", func() string {
			return reclaimText(newReclaimReport(reclaim.Filter{}, reclaim.Action{}, reclaim.Summary{}))
		}},
		{"free", func() string { return reclaimText(freed()) }},
		{"reclaim-reasons", func() string {
			sum := reclaim.Summary{Results: reasonResults()}
			return reclaimText(newReclaimReport(reclaim.Filter{}, reclaim.Action{}, sum))
		}},
		{"reclaim-reasons-left", func() string {
			sum := reclaim.Summary{Results: reasonResults()}
			sum.Ports = heldPorts(sum.Results)
			return reclaimText(newReclaimReport(reclaim.Filter{Ports: []uint16{9000}}, reclaim.Action{}, sum))
		}},
		{"run-refusals", refusals},
		{"ps", func() string {
			var b strings.Builder
			if err := writePS(&b, psEntries(), psOthers()); err != nil {
				t.Fatal(err)
			}
			return b.String()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) { goldenText(t, tc.name, tc.text()) })
	}
}

// goldenText compares text with testdata/text/NAME.golden.
func goldenText(t *testing.T, name, text string) {
	t.Helper()
	path := filepath.Join("testdata", "text", name+".golden")
	if os.Getenv("TETHER_UPDATE_GOLDEN") != "" {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v; generate it with TETHER_UPDATE_GOLDEN=1 go test -run TestTextGolden .", err)
	}
	if text != string(want) {
		t.Errorf("%s text changed:\n got %s\nwant %s", name, text, want)
	}
}

func reclaimText(rep reclaimReport) string {
	var b strings.Builder
	if err := writeReclaim(&b, rep); err != nil {
		panic(err)
	}
	// A foreign holder's age is the machine's: from its boot time.
	return ageRE.ReplaceAllString(b.String(), ", AGE old)")
}

var ageRE = regexp.MustCompile(`, [0-9]+[smhd] old\)`)

// heldPorts has port 9000 held by each result, each left for the reason
// its outcome gives.
func heldPorts(rs []reclaim.Result) []reclaim.PortState {
	st := reclaim.PortState{Port: 9000}
	for _, r := range rs {
		st.Holders = append(st.Holders, r.PID)
		why := reclaim.LeftNotEnded
		if !r.Selected {
			why = reclaim.LeftNotSelected
		}
		st.Left = append(st.Left, reclaim.LeftHolder{Why: why, PID: r.PID})
	}
	return []reclaim.PortState{st}
}

// refusals are tether run --port's refusal for a port held by each of
// the reason results, one a line.
func refusals() string {
	var b strings.Builder
	for _, r := range reasonResults() {
		sum := reclaim.Summary{Results: []reclaim.Result{r}, Ports: []reclaim.PortState{{Port: 9000, Holders: []int{r.PID}}}}
		fmt.Fprintf(&b, "%v\n", portRefusal(sum))
	}
	return b.String()
}

func holderAt(pid, uid int, v probe.Verdict, why probe.Why) reclaim.Process {
	r := foreignReport(pid, uid)
	r.Verdict, r.Why = v, why
	return reclaim.Process{Report: r, Ports: []reclaim.Listener{listener("tcp", "0.0.0.0", 9000)}}
}

func tetheredAt(pid, uid int, v probe.Verdict) reclaim.Process {
	r := fullReport()
	r.PID, r.UID, r.Verdict = pid, intp(uid), v
	return reclaim.Process{Report: r, Ports: []reclaim.Listener{listener("tcp", "::", 9000)}}
}

func managedBy(p reclaim.Process, m *reclaim.Manager) reclaim.Process {
	p.Manager = m
	return p
}

// reasonResults are a result for each reason a process is left out, and
// for each way a selected one is not ended, in the words the library
// gives them.
func reasonResults() []reclaim.Result {
	foreign := noMarker
	skip := func(p reclaim.Process, reason reclaim.Reason) reclaim.Result {
		return reclaim.Result{Process: p, Outcome: reclaim.Skipped, Excluded: reason}
	}
	ended := func(p reclaim.Process, o reclaim.Outcome, reason reclaim.Reason, c reclaim.Cause) reclaim.Result {
		return reclaim.Result{Process: p, Selected: true, Outcome: o, Excluded: reason, Cause: c}
	}
	supervised := tetheredAt(5009, 1000, probe.Supervised)
	supervised.Supervisor = &probe.SupervisorReport{PID: 1, StartTime: 8800000, State: probe.SupervisorAlive, HostPID: 4200}
	orphan := tetheredAt(5010, 1000, probe.Supervised)
	orphan.Supervisor, orphan.PPID = nil, 4300
	other := tetheredAt(5002, 1000, probe.Stranded)
	other.RunID = "fedcba9876543210fedcba9876543210"
	container := &reclaim.Manager{Kind: reclaim.ByContainer, Engine: reclaim.Docker, ID: "8e3f1371fb44aa55", Name: "tb1", Image: "bb:1"}
	nameless := &reclaim.Manager{Kind: reclaim.ByContainer, Engine: reclaim.Docker, Proxy: true, Helper: "docker-proxy"}
	podman := &reclaim.Manager{Kind: reclaim.ByContainer, Engine: reclaim.Podman, Rootless: true, UID: 54321, Proxy: true, Helper: "rootlessport"}
	pod := &reclaim.Manager{Kind: reclaim.ByContainer, Engine: reclaim.Kubernetes, ID: "aa55"}
	unreachable := errors.New("its engine could not be asked")
	unnamed := errors.New("its engine named no container for it")
	return []reclaim.Result{
		skip(holderAt(5001, 1000, probe.Foreign, foreign), reclaim.NotTethered),
		skip(other, reclaim.OtherRun),
		skip(tetheredAt(5003, 1001, probe.Stranded), reclaim.OtherUser),
		skip(holderAt(5004, 1001, probe.Foreign, foreign), reclaim.OtherUserHolder),
		skip(holderAt(5005, 1001, probe.Foreign, foreign), reclaim.RootOnly),
		skip(holderAt(5006, 1000, probe.Foreign, foreign), reclaim.ForeignHolder),
		skip(managedBy(holderAt(5007, 0, probe.Foreign, foreign), container), reclaim.ForeignHolder),
		skip(holderAt(5008, 1000, probe.Unverifiable, probe.Why{Kind: probe.Unreadable, Err: errors.New("its environment cannot be read")}), reclaim.ForeignHolder),
		skip(supervised, reclaim.SupervisedRun),
		skip(orphan, reclaim.SupervisedRun),
		skip(reclaim.Process{Report: foreignReport(1, 0), Protected: reclaim.ProtectedPID1}, reclaim.Protected),
		skip(managedBy(holderAt(5012, 0, probe.Foreign, foreign), unitManager()), reclaim.ManagedUnit),
		skip(managedBy(holderAt(5013, 1000, probe.Foreign, foreign), &reclaim.Manager{Kind: reclaim.ByUnit, User: true, UID: 1000, Name: "my app.service"}), reclaim.ManagedUnit),
		skip(managedBy(holderAt(5014, 1000, probe.Foreign, foreign), &reclaim.Manager{Kind: reclaim.ByProcessManager, Engine: reclaim.PM2, Name: "api", Daemon: 321}), reclaim.ManagedProgram),
		skip(managedBy(holderAt(5015, 1000, probe.Foreign, foreign), &reclaim.Manager{Kind: reclaim.ByProcessManager, Engine: reclaim.PM2, Daemon: 321}), reclaim.ManagedProgram),
		skip(managedBy(holderAt(5016, 1000, probe.Foreign, foreign), &reclaim.Manager{Kind: reclaim.ByProcessManager, Engine: reclaim.Supervisord, Daemon: 322}), reclaim.ManagedProgram),
		skip(managedBy(holderAt(5017, 1000, probe.Foreign, foreign), &reclaim.Manager{Kind: reclaim.ByProcessManager, Engine: reclaim.Supervisord, Name: "web:0"}), reclaim.ManagedProgram),
		ended(tetheredAt(5018, 1000, probe.Stranded), reclaim.Changed, "", reclaim.Cause{Kind: reclaim.MarkersGone}),
		ended(tetheredAt(5019, 1000, probe.Stranded), reclaim.Changed, "", reclaim.Cause{Kind: reclaim.StartChanged, Was: 8812345, Now: 999}),
		ended(tetheredAt(5020, 1000, probe.Stranded), reclaim.Changed, reclaim.SupervisedRun, reclaim.Cause{Kind: reclaim.NoLongerSelected, Again: &supervised.Report}),
		ended(holderAt(5021, 1000, probe.Foreign, foreign), reclaim.Changed, "", reclaim.Cause{Kind: reclaim.SocketGone, Port: 9000}),
		ended(tetheredAt(5022, 1000, probe.Stranded), reclaim.Changed, "", reclaim.Cause{Kind: reclaim.Unchecked, Err: errors.New("open /proc/5022/environ: permission denied")}),
		ended(tetheredAt(5023, 1000, probe.Stranded), reclaim.Failed, "", reclaim.Cause{Kind: reclaim.SignalFailed, Err: syscall.EPERM}),
		ended(managedBy(holderAt(5024, 0, probe.Foreign, foreign), container), reclaim.Failed, "",
			reclaim.Cause{Kind: reclaim.EngineUnasked, Err: unreachable, Manager: container, Port: 9000}),
		ended(managedBy(holderAt(5025, 0, probe.Foreign, foreign), nameless), reclaim.Failed, "",
			reclaim.Cause{Kind: reclaim.EngineFailed, Err: unnamed, Manager: nameless, Port: 9000}),
		ended(managedBy(holderAt(5026, 54321, probe.Foreign, foreign), podman), reclaim.Failed, "",
			reclaim.Cause{Kind: reclaim.EngineFailed, Err: unnamed, Manager: podman, Port: 9000}),
		ended(managedBy(holderAt(5027, 0, probe.Foreign, foreign), pod), reclaim.Failed, "",
			reclaim.Cause{Kind: reclaim.EngineFailed, Err: unreachable, Manager: pod, Port: 9000}),
		ended(tetheredAt(5028, 1000, probe.Stranded), reclaim.Survived, "", reclaim.Cause{Kind: reclaim.KillIgnored, After: 10 * time.Second}),
		ended(tetheredAt(5029, 1000, probe.Stranded), reclaim.Survived, "",
			reclaim.Cause{Kind: reclaim.CutShort, Err: context.Canceled}),
	}
}
