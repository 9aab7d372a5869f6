package e2e

import (
	"encoding/json"
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

func TestCheckBadInput(t *testing.T) {
	max := proc.Host().MaxPID()
	tests := []struct {
		args []string
		bad  string
	}{
		{[]string{"check"}, "missing PID"},
		{[]string{"check", ""}, `""`},
		{[]string{"check", "abc"}, `"abc"`},
		{[]string{"check", "-1"}, `"-1"`},
		{[]string{"check", "--", "-1"}, `"-1"`},
		{[]string{"check", "0"}, `"0"`},
		{[]string{"check", "1.5"}, `"1.5"`},
		{[]string{"check", "99999999999"}, `"99999999999"`},
		{[]string{"check", strconv.Itoa(max + 1)}, strconv.Itoa(max + 1)},
		{[]string{"check", "1", "2"}, "1 2"},
		{[]string{"check", "--name", "a=b", "1"}, `"a=b"`},
		{[]string{"check", "--name", strings.Repeat("n", 65), "1"}, strings.Repeat("n", 65)},
		{[]string{"check", "--name", "", "1"}, `""`},
		{[]string{"check", "--marker-var", "A=B", "1"}, `"A=B"`},
		{[]string{"check", "--name-var", "TETHER", "1"}, `"TETHER"`},
		{[]string{"check", "--name"}, "name"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			wantUsage(t, tether(t, nil, tt.args...), tt.bad)
		})
	}
}

// checkReport is what the tests read of tether check --json, and of a
// row of ps --json, as a script reads it: the CLI's JSON, not a library
// type.
type checkReport struct {
	PID        int           `json:"pid"`
	Verdict    probe.Verdict `json:"verdict"`
	Tethered   bool          `json:"tethered"`
	Reason     string        `json:"reason"`
	Name       string        `json:"name"`
	RunID      string        `json:"run_id"`
	Container  string        `json:"container"` // "cgroup:PATH", "pidns:init=PID", "record:RUNID"; "" for none
	Supervisor *struct {
		PID     int                   `json:"pid"`
		State   probe.SupervisorState `json:"state"`
		HostPID int                   `json:"host_pid"`
	} `json:"supervisor"`
}

func checkJSON(t *testing.T, env []string, args ...string) (checkReport, int) {
	t.Helper()
	r := tether(t, env, append([]string{"check", "--json"}, args...)...)
	var rep checkReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("check --json %q: %v; stdout %q stderr %q; want a JSON report", args, err, r.stdout, r.stderr)
	}
	if r.stderr != "" {
		t.Errorf("check --json %q: stderr %q, want nothing", args, r.stderr)
	}
	return rep, r.code
}

func stampEnv(t *testing.T, name string, sup procid.ID) []string {
	t.Helper()
	return (marker.Markers{}).Environ(nil, marker.Stamp{Name: name, Supervisor: sup, RunID: marker.NewRunID()})
}

func selfSupervisor(t *testing.T) procid.ID {
	t.Helper()
	s, err := proctest.SupervisorOf(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Every verdict through the binary: the exit status and the JSON report.
func TestCheckVerdicts(t *testing.T) {
	supervised := proctest.Start(t, proctest.Wait, proctest.Spec{Env: stampEnv(t, "web", selfSupervisor(t))})
	gone := selfSupervisor(t)
	gone.StartTime++
	stranded := proctest.Start(t, proctest.Wait, proctest.Spec{Env: stampEnv(t, "web", gone)})
	foreign := proctest.Start(t, proctest.Wait, proctest.Spec{Env: []string{"TETHER=1 ", "TETHER_NAME=web"}})
	zombie := proctest.StartUnreaped(t, proctest.Exit, proctest.Spec{Env: []string{"TETHER=1"}})
	proctest.Eventually(t, "zombie", func() bool {
		p, err := proc.Host().Process(zombie.PID())
		return err == nil && p.Zombie
	})
	reaped := proctest.Start(t, proctest.Exit, proctest.Spec{})
	<-reaped.Done()

	tests := []struct {
		name    string
		pid     int
		args    []string
		verdict probe.Verdict
		code    int
	}{
		{"supervised", supervised.PID(), []string{"--name", "web"}, probe.Supervised, 0},
		{"supervised, any name", supervised.PID(), nil, probe.Supervised, 0},
		{"other name", supervised.PID(), []string{"--name", "we"}, probe.Foreign, 1},
		{"stranded", stranded.PID(), []string{"--name", "web"}, probe.Stranded, 0},
		{"foreign", foreign.PID(), nil, probe.Foreign, 1},
		{"zombie", zombie.PID(), nil, probe.Zombie, 2},
		{"gone", reaped.PID(), nil, probe.Gone, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep, code := checkJSON(t, nil, append(tt.args, strconv.Itoa(tt.pid))...)
			if rep.Verdict != tt.verdict || code != tt.code || rep.PID != tt.pid {
				t.Errorf("verdict %s exit %d, want %s %d: %+v", rep.Verdict, code, tt.verdict, tt.code, rep)
			}
			// The human line agrees with the exit status.
			r := tether(t, nil, append(append([]string{"check"}, tt.args...), strconv.Itoa(tt.pid))...)
			if r.code != tt.code || !strings.Contains(r.stdout, string(tt.verdict)) || strings.Count(r.stdout, "\n") != 1 {
				t.Errorf("human: %+v; want exit %d and one line naming %s", r, tt.code, tt.verdict)
			}
			if strings.Contains(r.stdout, "\x1b[") {
				t.Errorf("colour on a pipe: %q, want no escape sequences", r.stdout)
			}
		})
	}
}

func TestCheckSeedMarkersFlags(t *testing.T) {
	p := proctest.Start(t, proctest.Wait, proctest.Spec{Env: []string{"SYSTEMPROMPT_SUBPROCESS=1", "MCP_SERVICE_ID=files"}})
	seed := []string{"--marker-var", "SYSTEMPROMPT_SUBPROCESS", "--name-var", "MCP_SERVICE_ID"}
	pid := strconv.Itoa(p.PID())
	if rep, code := checkJSON(t, nil, append(seed, "--name", "files", pid)...); code != 0 || rep.Verdict != probe.Supervised || rep.Name != "files" {
		t.Errorf("seed markers: exit %d %+v, want exit 0, supervised, name files", code, rep)
	}
	if _, code := checkJSON(t, nil, append(seed, "--name", "files-2", pid)...); code != 1 {
		t.Errorf("seed markers, other name: exit %d, want 1 (foreign)", code)
	}
	if _, code := checkJSON(t, nil, pid); code != 1 {
		t.Errorf("default markers on a seed-marked process: exit %d, want 1 (foreign)", code)
	}
}

// Marker variables in tether's own environment are never configuration.
func TestCheckIgnoresOwnMarkers(t *testing.T) {
	p := proctest.Start(t, proctest.Wait, proctest.Spec{Env: []string{"TETHER=1", "TETHER_NAME=web"}})
	rep, code := checkJSON(t, []string{"TETHER=1", "TETHER_NAME=other", "TETHER_RUN_ID=zz"}, strconv.Itoa(p.PID()))
	if code != 0 || rep.Name != "web" {
		t.Errorf("exit %d %+v, want exit 0 and name web (the process's own, not tether's)", code, rep)
	}
}

func TestCheckThreadID(t *testing.T) {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range tasks {
		if task.Name() == strconv.Itoa(os.Getpid()) {
			continue
		}
		rep, code := checkJSON(t, nil, task.Name())
		if code != 3 || !strings.Contains(rep.Reason, "thread") {
			t.Errorf("thread %s: exit %d %+v, want exit 3 and a reason naming the thread", task.Name(), code, rep)
		}
		return
	}
	t.Skip("the test process has one thread")
}

func TestCheckUnverifiableAsOtherUser(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to run tether as another user (uid 65534)")
	}
	p := proctest.Start(t, proctest.Wait, proctest.Spec{Env: stampEnv(t, "web", selfSupervisor(t))})
	cmd := exec.Command(tetherBin, "check", "--json", "--name", "web", strconv.Itoa(p.PID()))
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	cmd.Dir = "/"
	r := tetherCmd(t, cmd, nil)
	var rep checkReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("check --json as uid 65534: %+v: %v; want a JSON report", r, err)
	}
	if r.code != 4 || rep.Verdict != probe.Unverifiable || rep.Tethered {
		t.Errorf("exit %d %+v, want exit 4, unverifiable, not tethered", r.code, rep)
	}
}

// Under a terminal the verdict is coloured, unless NO_COLOR is set.
func TestCheckColourOnTerminal(t *testing.T) {
	p := proctest.Start(t, proctest.Wait, proctest.Spec{Env: []string{"TETHER=1"}})
	for _, noColor := range []bool{false, true} {
		master, slave := proctest.OpenPTY(t)
		cmd := exec.Command(tetherBin, "check", strconv.Itoa(p.PID()))
		cmd.Env = proctest.CleanEnv()
		if noColor {
			cmd.Env = append(cmd.Env, "NO_COLOR=1")
		}
		cmd.Stdout, cmd.Stderr = slave, slave
		if err := cmd.Run(); err != nil {
			t.Fatal(err)
		}
		slave.Close()
		out, _ := io.ReadAll(master)
		if got := strings.Contains(string(out), "\x1b["); got == noColor {
			t.Errorf("NO_COLOR set %v: output %q, want colour %v", noColor, out, !noColor)
		}
	}
}
