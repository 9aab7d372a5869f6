package probe_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/proctest"
	"github.com/tetherproc/tether/marker"
	"github.com/tetherproc/tether/probe"
	"github.com/tetherproc/tether/procid"
)

func self(t *testing.T) procid.ID {
	t.Helper()
	s, err := proctest.SupervisorOf(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// seed is another supervisor's scheme: SYSTEMPROMPT_SUBPROCESS=1 and
// MCP_SERVICE_ID=<name>, compared entry by entry.
var seed = marker.Markers{MarkerVar: "SYSTEMPROMPT_SUBPROCESS", NameVar: "MCP_SERVICE_ID"}

// stamped starts a waiting helper whose environment carries the stamp.
func stamped(t *testing.T, m marker.Markers, s marker.Stamp) *proctest.Proc {
	t.Helper()
	return proctest.Start(t, proctest.Wait, proctest.Spec{Env: m.Environ(nil, s)})
}

func check(t *testing.T, pid int, opts probe.Query) probe.Report {
	t.Helper()
	r, err := probe.Check(pid, opts)
	if err != nil {
		t.Fatalf("Check(%d): %v", pid, err)
	}
	return r
}

func wantVerdict(t *testing.T, r probe.Report, v probe.Verdict) {
	t.Helper()
	if r.Verdict != v {
		t.Fatalf("verdict %s, want %s: %+v", r.Verdict, v, r)
	}
	if r.Tethered != v.Tethered() {
		t.Errorf("Tethered = %v for %s", r.Tethered, v)
	}
}

// deadSupervisor is a supervisor value of a process that ran and was reaped.
func deadSupervisor(t *testing.T) procid.ID {
	t.Helper()
	p := proctest.Start(t, proctest.Wait, proctest.Spec{})
	s, err := proctest.SupervisorOf(p.PID())
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestCheckSupervised(t *testing.T) {
	runID := marker.NewRunID()
	p := stamped(t, marker.Markers{}, marker.Stamp{Name: "web", Supervisor: self(t), RunID: runID})
	r := check(t, p.PID(), probe.Query{Name: "web"})
	wantVerdict(t, r, probe.Supervised)
	if r.Name != "web" || r.RunID != runID || r.PPID != os.Getpid() || r.PID != p.PID() {
		t.Errorf("report %+v", r)
	}
	if r.Supervisor == nil || r.Supervisor.PID != os.Getpid() || r.Supervisor.State != probe.SupervisorAlive {
		t.Errorf("supervisor %+v", r.Supervisor)
	}
	if r.UID == nil || *r.UID != os.Getuid() {
		t.Errorf("uid %v, want %d", r.UID, os.Getuid())
	}
	if len(r.Command) == 0 || r.Command[0] != os.Args[0] {
		t.Errorf("command %q", r.Command)
	}
	// Without a name asked for, any tethered process matches.
	wantVerdict(t, check(t, p.PID(), probe.Query{}), probe.Supervised)
}

func TestCheckStrandedSupervisorGone(t *testing.T) {
	dead := deadSupervisor(t)
	p := stamped(t, marker.Markers{}, marker.Stamp{Name: "web", Supervisor: dead, RunID: marker.NewRunID()})
	r := check(t, p.PID(), probe.Query{Name: "web"})
	wantVerdict(t, r, probe.Stranded)
	if r.Supervisor == nil || r.Supervisor.State != probe.SupervisorGone || r.Supervisor.PID != dead.PID {
		t.Errorf("supervisor %+v", r.Supervisor)
	}
}

// A supervisor PID that is alive with another start time has been
// recycled: the process it named is gone.
func TestCheckStrandedSupervisorPIDReused(t *testing.T) {
	reused := self(t)
	reused.StartTime++
	p := stamped(t, marker.Markers{}, marker.Stamp{Name: "web", Supervisor: reused, RunID: marker.NewRunID()})
	r := check(t, p.PID(), probe.Query{})
	wantVerdict(t, r, probe.Stranded)
	if r.Supervisor.State != probe.SupervisorReused {
		t.Errorf("supervisor %+v", r.Supervisor)
	}
}

func TestCheckStrandedSupervisorZombie(t *testing.T) {
	z := proctest.StartUnreaped(t, proctest.Exit, proctest.Spec{})
	waitZombie(t, z.PID())
	s, err := proctest.SupervisorOf(z.PID())
	if err != nil {
		t.Fatal(err)
	}
	p := stamped(t, marker.Markers{}, marker.Stamp{Name: "web", Supervisor: s, RunID: marker.NewRunID()})
	r := check(t, p.PID(), probe.Query{})
	wantVerdict(t, r, probe.Stranded)
	if r.Supervisor.State != probe.SupervisorZombie {
		t.Errorf("supervisor %+v", r.Supervisor)
	}
}

// The supervisor's PID now names a thread: the process it named is gone.
func TestCheckStrandedSupervisorIsThread(t *testing.T) {
	tid := threadOfSelf(t)
	p := stamped(t, marker.Markers{}, marker.Stamp{Name: "web", Supervisor: procid.ID{PID: tid, StartTime: 1}, RunID: marker.NewRunID()})
	wantVerdict(t, check(t, p.PID(), probe.Query{}), probe.Stranded)
}

// Without TETHER_SUPERVISOR, a tethered process is stranded when its
// parent is PID 1.
func TestCheckNoSupervisorEntry(t *testing.T) {
	p := proctest.Start(t, proctest.Wait, proctest.Spec{Env: []string{"TETHER=1", "TETHER_NAME=web"}})
	r := check(t, p.PID(), probe.Query{Name: "web"})
	wantVerdict(t, r, probe.Supervised)
	if r.Supervisor != nil {
		t.Errorf("supervisor %+v", r.Supervisor)
	}

	pr, pw := io.Pipe()
	orphan := proctest.Start(t, proctest.Orphan, proctest.Spec{
		Env:    []string{"TETHER=1", "TETHER_NAME=web", "TETHER_SUPERVISOR=garbage"},
		Stdout: pw,
	})
	pid, err := strconv.Atoi(proctest.ReadLine(t, pr))
	if err != nil {
		t.Fatal(err)
	}
	<-orphan.Done()
	pw.Close()
	var ppid int
	proctest.Eventually(t, "orphan reparented", func() bool {
		q, err := proc.Host().Process(pid)
		ppid = q.PPID
		return err == nil && q.PPID != orphan.PID()
	})
	if ppid != 1 {
		t.Skipf("the orphan was adopted by subreaper %d, not PID 1", ppid)
	}
	r = check(t, pid, probe.Query{Name: "web"})
	wantVerdict(t, r, probe.Stranded)
	if r.Why.Kind != probe.BadSupervisorVar || r.Why.Value != "garbage" || r.PPID != 1 {
		t.Errorf("why %+v, parent %d; want %s garbage, parent 1", r.Why, r.PPID, probe.BadSupervisorVar)
	}
}

func TestCheckForeign(t *testing.T) {
	sup := self(t)
	tests := []struct {
		name string
		env  []string
		opts probe.Query
	}{
		{"no marker", nil, probe.Query{}},
		{"marker 0", []string{"TETHER=0", "TETHER_NAME=web"}, probe.Query{}},
		{"marker with space", []string{"TETHER=1 ", "TETHER_NAME=web"}, probe.Query{}},
		{"marker true", []string{"TETHER=true"}, probe.Query{}},
		{"name with suffix", []string{"TETHER=1", "TETHER_NAME=web2"}, probe.Query{Name: "web"}},
		{"name prefix", []string{"TETHER=1", "TETHER_NAME=we"}, probe.Query{Name: "web"}},
		{"no name", []string{"TETHER=1"}, probe.Query{Name: "web"}},
		{"seed name with suffix", []string{"SYSTEMPROMPT_SUBPROCESS=1", "MCP_SERVICE_ID=files-2"}, probe.Query{Markers: seed, Name: "files"}},
		{"seed marker true", []string{"SYSTEMPROMPT_SUBPROCESS=true", "MCP_SERVICE_ID=files"}, probe.Query{Markers: seed, Name: "files"}},
		{"tether markers under seed", []string{"TETHER=1", "TETHER_NAME=files"}, probe.Query{Markers: seed, Name: "files"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := append(tt.env, marker.SupervisorVar+"="+sup.String())
			p := proctest.Start(t, proctest.Wait, proctest.Spec{Env: env})
			r := check(t, p.PID(), tt.opts)
			wantVerdict(t, r, probe.Foreign)
			switch r.Why.Kind {
			case probe.NoMarker, probe.WrongMarker, probe.NoName, probe.WrongName:
			default:
				t.Errorf("why %+v; want a marker's or a name's", r.Why)
			}
		})
	}
}

// Another supervisor's scheme (SYSTEMPROMPT_SUBPROCESS, MCP_SERVICE_ID) is
// recognised exactly.
func TestCheckSeedMarkers(t *testing.T) {
	p := proctest.Start(t, proctest.Wait, proctest.Spec{Env: []string{"SYSTEMPROMPT_SUBPROCESS=1", "MCP_SERVICE_ID=files"}})
	r := check(t, p.PID(), probe.Query{Markers: seed, Name: "files"})
	wantVerdict(t, r, probe.Supervised)
	if r.Name != "files" {
		t.Errorf("name %q", r.Name)
	}
	wantVerdict(t, check(t, p.PID(), probe.Query{Markers: seed, Name: "file"}), probe.Foreign)
	wantVerdict(t, check(t, p.PID(), probe.Query{}), probe.Foreign)
}

func waitZombie(t *testing.T, pid int) {
	t.Helper()
	proctest.Eventually(t, "helper became a zombie", func() bool {
		p, err := proc.Host().Process(pid)
		return err == nil && p.Zombie
	})
}

func TestCheckZombie(t *testing.T) {
	z := proctest.StartUnreaped(t, proctest.Exit, proctest.Spec{Env: []string{"TETHER=1", "TETHER_NAME=web"}})
	waitZombie(t, z.PID())
	r := check(t, z.PID(), probe.Query{Name: "web"})
	wantVerdict(t, r, probe.Zombie)
	if r.PPID != os.Getpid() {
		t.Errorf("ppid %d", r.PPID)
	}
}

func TestCheckGone(t *testing.T) {
	p := proctest.Start(t, proctest.Exit, proctest.Spec{Env: []string{"TETHER=1"}})
	<-p.Done()
	r := check(t, p.PID(), probe.Query{})
	wantVerdict(t, r, probe.Gone)
	if _, err := proc.Host().Process(p.PID()); !errors.Is(err, proc.ErrGone) {
		t.Errorf("ReadProcess of a reaped PID: %v", err)
	}
}

func threadOfSelf(t *testing.T) int {
	t.Helper()
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range tasks {
		if tid, _ := strconv.Atoi(task.Name()); tid != os.Getpid() {
			return tid
		}
	}
	t.Skip("the test process has one thread")
	return 0
}

func TestCheckThreadIsNotAProcess(t *testing.T) {
	tid := threadOfSelf(t)
	r := check(t, tid, probe.Query{})
	wantVerdict(t, r, probe.Gone)
	if r.Why.Kind != probe.Thread || r.Why.Leader != os.Getpid() {
		t.Errorf("why %+v; want %s of process %d", r.Why, probe.Thread, os.Getpid())
	}
}

func TestCheckKernelThread(t *testing.T) {
	p, err := proc.Host().Process(2)
	if err != nil || !p.KernelThread {
		t.Skipf("PID 2 is not a kernel thread here (%v)", err)
	}
	wantVerdict(t, check(t, 2, probe.Query{}), probe.Foreign)
}

// Command names with spaces and parentheses, as a program can choose its
// own, are read from the real /proc right.
func TestCheckHostileCommandName(t *testing.T) {
	for _, name := range []string{"x) Z (y z", "a b", ") R 1 (", "((", "))"} {
		t.Run(name, func(t *testing.T) {
			path := proctest.Copy(t, name)
			p := proctest.Start(t, proctest.Wait, proctest.Spec{Path: path, Env: []string{"TETHER=1"}})
			r := check(t, p.PID(), probe.Query{})
			wantVerdict(t, r, probe.Supervised)
			if r.Comm != name || r.PPID != os.Getpid() {
				t.Errorf("comm %q ppid %d, want %q %d", r.Comm, r.PPID, name, os.Getpid())
			}
		})
	}
}

// modeCheck runs probe.Check on PROCTEST_PID and prints the report: a
// check made from another process, as another user.
var modeCheck = proctest.Register("check", func() {
	pid, _ := strconv.Atoi(os.Getenv("PROCTEST_PID"))
	r, err := probe.Check(pid, probe.Query{Name: os.Getenv("PROCTEST_NAME")})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	_ = json.NewEncoder(os.Stdout).Encode(checked{Verdict: r.Verdict, Kind: r.Why.Kind, Err: fmt.Sprint(r.Why.Err)})
})

// checked is what modeCheck prints of its report: an error does not
// survive JSON.
type checked struct {
	Verdict probe.Verdict
	Kind    probe.WhyKind
	Err     string
}

// As root, a check made as uid 65534 cannot read a root process's
// environment: unverifiable, never tethered.
func TestCheckUnverifiable(t *testing.T) {
	proctest.MaySkip(modeCheck)
	if os.Getuid() != 0 {
		t.Skip("needs root to run the check as another user (uid 65534)")
	}
	target := stamped(t, marker.Markers{}, marker.Stamp{Name: "web", Supervisor: deadSupervisor(t), RunID: marker.NewRunID()})
	pr, pw := io.Pipe()
	checker := proctest.Start(t, modeCheck, proctest.Spec{
		Path:        proctest.Copy(t, "probe.test"),
		Env:         []string{"PROCTEST_PID=" + strconv.Itoa(target.PID()), "PROCTEST_NAME=web"},
		SysProcAttr: &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}},
		Stdout:      pw,
	})
	line := proctest.ReadLine(t, pr)
	pw.Close()
	<-checker.Done()
	var r checked
	if err := json.Unmarshal([]byte(line), &r); err != nil {
		t.Fatalf("report %q: %v", line, err)
	}
	if r.Verdict != probe.Unverifiable || r.Kind != probe.Unreadable || !strings.Contains(r.Err, "permission denied") {
		t.Errorf("%s, %s: %s; want unverifiable, %s: permission denied", r.Verdict, r.Kind, r.Err, probe.Unreadable)
	}
}

func BenchmarkCheck(b *testing.B) {
	sup, err := proctest.SupervisorOf(os.Getpid())
	if err != nil {
		b.Fatal(err)
	}
	p := proctest.Start(b, proctest.Wait, proctest.Spec{
		Env: (marker.Markers{}).Environ(nil, marker.Stamp{Name: "web", Supervisor: sup, RunID: marker.NewRunID()}),
	})
	b.ReportAllocs()
	for b.Loop() {
		r, err := probe.Check(p.PID(), probe.Query{Name: "web"})
		if err != nil || r.Verdict != probe.Supervised {
			b.Fatalf("%v %+v", err, r)
		}
	}
}

// Only a process between the two halves of an execve counts as
// executing; the ones whose environment is empty for good do not, and a
// check of them is not held up waiting for an environment to appear.
func TestExecutingOnlyMidExec(t *testing.T) {
	bare := exec.Command("/bin/sleep", "30")
	bare.Env = []string{}
	if err := bare.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = bare.Process.Kill(); _ = bare.Wait() }()
	proctest.Eventually(t, "sleep has exec'd", func() bool {
		cmd, _ := proc.Host().Cmdline(bare.Process.Pid)
		return len(cmd) > 0
	})
	z := proctest.StartUnreaped(t, proctest.Exit, proctest.Spec{})
	waitZombie(t, z.PID())
	for _, c := range []struct {
		what string
		pid  int
	}{{"an empty environment", bare.Process.Pid}, {"a zombie", z.PID()}, {"a kernel thread", 2}, {"this process", os.Getpid()}} {
		if proc.Host().Executing(c.pid) {
			t.Errorf("%s (%d) counts as executing", c.what, c.pid)
		}
	}
	r := check(t, bare.Process.Pid, probe.Query{})
	wantVerdict(t, r, probe.Foreign)
}

// A process that wrote its title over its environment area (setproctitle,
// Perl's $0) cannot be told apart any more: unverifiable, with the
// reason, never foreign.
func TestCheckRenamedIsUnverifiable(t *testing.T) {
	stamp := (marker.Markers{}).Environ(nil, marker.Stamp{Name: "web", Supervisor: self(t), RunID: marker.NewRunID()})
	out, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	p := proctest.Start(t, proctest.Retitle, proctest.Spec{Env: append(stamp, "PROCTEST_TITLE=web: worker [busy]"), Stdout: w})
	w.Close()
	if line := proctest.ReadLine(t, out); line != strconv.Itoa(p.PID()) {
		t.Fatalf("retitle helper said %q, want its PID %d", line, p.PID())
	}
	pids := map[string]int{"setproctitle": p.PID()}
	if perl, err := exec.LookPath("perl"); err == nil {
		cmd := exec.Command(perl, "-e", `$0 = "srv"; $| = 1; print "$$\n"; <STDIN>`)
		cmd.Env = append(append(proctest.CleanEnv(), proctest.Env(t)...), stamp...)
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		pr, pw, _ := os.Pipe()
		cmd.Stdout = pw
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		pw.Close()
		defer func() { stdin.Close(); _ = cmd.Wait(); pr.Close() }()
		if line := proctest.ReadLine(t, pr); line != strconv.Itoa(cmd.Process.Pid) {
			t.Fatalf("perl said %q, want its PID %d", line, cmd.Process.Pid)
		}
		pids["perl $0"] = cmd.Process.Pid
	} else {
		t.Log("no perl: only the setproctitle-like helper is checked")
	}
	for what, pid := range pids {
		r := check(t, pid, probe.Query{})
		if r.Verdict != probe.Unverifiable || r.Why.Kind != probe.Overwritten {
			t.Errorf("%s: %s (%s); want unverifiable, %s", what, r.Verdict, r.Why.Kind, probe.Overwritten)
		}
	}
}
