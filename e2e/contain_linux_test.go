package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tetherproc/tether/internal/cgroup"
	"github.com/tetherproc/tether/internal/kill"
	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/proctest"
	"github.com/tetherproc/tether/internal/ptree"
	"github.com/tetherproc/tether/probe"
	"github.com/tetherproc/tether/procid"
)

// escapeesScript starts one escapee of each kind, each of which writes
// its PID to a file of its own in $1, then prints "ready" once all have,
// and with "stay" as $2 stays. Every process it starts carries the token
// $3 on its command line (as the duration of its sleep), so that a
// leftover can be found, read-only, by it. Without "stay", it exits with
// status 3 once the file "go" is there. The command itself is started
// by setpriv with its parent-death signal cleared.
const escapeesScript = `out=$1 stay=$2 t=$3
# 1. A grandchild that starts a session of its own and double-forks.
setsid sh -c "sh -c 'echo \$\$ >$out/double; exec sleep $t' &" &
# 2. One that clears its environment before forking.
env -i /bin/sh -c "sh -c 'echo \$\$ >$out/cleared; exec sleep $t' &" &
# 3. One that renames itself over its environment.
if command -v perl >/dev/null; then
	perl -e '$0 = "srv: worker"; open my $f, ">", "'$out'/renamed.tmp"; print $f "$$\n"; close $f; rename "'$out'/renamed.tmp", "'$out'/renamed"; sleep '$t &
else
	echo none >$out/renamed
fi
# 4. One that moves to a process group of its own (and, as the command,
# runs with no parent-death signal).
sh -c "set -m; sleep $t & echo \$! >$out/pgid.tmp; mv $out/pgid.tmp $out/pgid" &
# 5. One that keeps forking, bounded, in a session of its own, its
# children ignoring TERM.
env -i setsid /bin/sh -c "echo \$\$ >$out/forker; i=0; while [ \$i -lt 400 ]; do sh -c 'trap \"\" TERM; exec sleep $t' & i=\$((i+1)); done; wait" &
for f in double cleared renamed pgid forker; do
	while [ ! -s $out/$f ]; do sleep 0.01; done
done
echo ready
[ "$stay" = stay ] && exec sleep $t
# Exits once the test has read the PIDs.
while [ ! -e $out/go ]; do sleep 0.01; done
exit 3
`

// escapeCase is one run of the escapees.
type escapeCase struct {
	mode string // --contain=mode
	as   *syscall.Credential
}

// TestContainEndsEscapees runs the escapees under each containment, as
// root and (the PID namespace, through a user namespace) as uid 65534,
// and ends the run in each of three ways: nothing may be left.
func TestContainEndsEscapees(t *testing.T) {
	needFull(t, "containment needs Linux's own path")
	if os.Geteuid() != 0 {
		t.Skip("needs root: the cgroup is made below root's, and the runs as uid 65534 need a change of user")
	}
	nobody := &syscall.Credential{Uid: 65534, Gid: 65534}
	cases := map[string]escapeCase{
		"cgroup":         {mode: "cgroup"},
		"pidns":          {mode: "pidns"},
		"pidns as 65534": {mode: "pidns", as: nobody},
	}
	for _, name := range []string{"cgroup", "pidns", "pidns as 65534"} {
		c := cases[name]
		if why := containUnavailable(t, c); why != "" {
			t.Run(name, func(t *testing.T) { t.Skip(why) })
			continue
		}
		for _, end := range []string{"command exits", "TERM", "SIGKILL"} {
			t.Run(name+"/"+end, func(t *testing.T) { runEscapees(t, c, end) })
		}
	}
}

// containUnavailable says why the kernel refuses a case, as tether doctor
// does for its user.
func containUnavailable(t *testing.T, c escapeCase) string {
	cmd := exec.Command(tetherBin, "doctor", "--json")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.as}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("doctor --json: %v", err)
	}
	var fs []struct {
		Name   string `json:"name"`
		OK     bool   `json:"ok"`
		Detail string `json:"detail"`
	}
	if err := json.Unmarshal(out, &fs); err != nil {
		t.Fatalf("doctor --json: %v: %s", err, out)
	}
	want := map[string]string{"cgroup": "cgroup v2", "pidns": "PID namespaces"}[c.mode]
	for _, f := range fs {
		if f.Name == want && !f.OK {
			return fmt.Sprintf("%s refused here: %s", f.Name, f.Detail)
		}
	}
	return ""
}

func runEscapees(t *testing.T, c escapeCase, end string) {
	// Not t.TempDir, whose parent only the test's user can enter.
	dir := sharedTemp(t)
	script := filepath.Join(dir, "escapees.sh")
	if err := os.WriteFile(script, []byte(escapeesScript), 0o755); err != nil {
		t.Fatal(err)
	}
	token := fmt.Sprintf("%d.%d", 3000+os.Getpid()%1000, time.Now().UnixNano()%1000000)
	stay := "exit"
	if end != "command exits" {
		stay = "stay"
	}
	r := startAs(t, c.as, tetherBin, nil, "run", "--contain="+c.mode, "--grace", "300ms", "--",
		"setpriv", "--pdeathsig", "clear", "--", "/bin/sh", script, dir, stay, token)
	if line := r.line(t); line != "ready" {
		t.Fatalf("escapees printed %q, want ready (stderr %q)", line, r.errOut.String())
	}
	ms := escapees(t, dir, r.cmd.Process.Pid)
	group := groupOf(t, c, ms[0].PID)
	switch end {
	case "command exits":
		if err := os.WriteFile(filepath.Join(dir, "go"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if code := r.wait(t); code != 3 {
			t.Errorf("exit %d, want the command's 3 (stderr %q)", code, r.errOut.String())
		}
	case "TERM":
		if err := r.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		if code := r.wait(t); code != 143 {
			t.Errorf("exit %d, want 143 (stderr %q)", code, r.errOut.String())
		}
	case "SIGKILL":
		if err := r.cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		r.wait(t)
	}
	wantEnded(t, ms, "after "+end)
	proctest.Eventually(t, "no process with token "+token+" left after "+end, func() bool {
		return len(withToken(token)) == 0
	})
	if group != "" {
		proctest.Eventually(t, "cgroup "+group+" removed after "+end, func() bool {
			_, err := os.Stat(group)
			return os.IsNotExist(err)
		})
	}
	if left := withToken(token); len(left) > 0 {
		t.Errorf("left after %s: %v", end, left)
	}
}

// escapees reads the PIDs the escapees wrote, with their start times,
// as this /proc numbers them: those written in a PID namespace are
// looked up among tether's descendants. Those still alive at the end of
// the test are killed: they are the test's own.
func escapees(t *testing.T, dir string, tetherPID int) []procid.ID {
	t.Helper()
	byNS := map[int]int{}
	// An escapee whose parent has just exited is in transit to its new
	// parent, on neither's list for a moment: a walk that missed one
	// is made again.
	walk := func() {
		for _, m := range ptree.Subtree(proc.Host(), tetherPID, 0) {
			if st, err := proc.Host().Status(m.PID); err == nil && len(st.NSpid) > 1 {
				byNS[st.NSpid[len(st.NSpid)-1]] = m.PID
			}
		}
	}
	walk()
	var ms []procid.ID
	for _, f := range []string{"double", "cleared", "renamed", "pgid", "forker"} {
		data, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if strings.TrimSpace(string(data)) == "none" {
			t.Logf("no perl here: no escapee renamed with $0")
			continue
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
		if err != nil {
			t.Fatalf("%s: %q is not a PID", f, data)
		}
		if len(byNS) > 0 {
			for deadline := time.Now().Add(10 * time.Second); byNS[pid] == 0 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
				walk()
			}
			host, ok := byNS[pid]
			if !ok {
				t.Fatalf("escapee %s: no descendant of tether is %d in its PID namespace", f, pid)
			}
			pid = host
		}
		st, err := proc.Host().Stat(pid)
		if err != nil {
			t.Fatalf("escapee %s (%d): %v; want it running", f, pid, err)
		}
		ms = append(ms, procid.ID{PID: pid, StartTime: st.StartTime})
	}
	t.Cleanup(func() {
		for _, m := range ms {
			_ = kill.Signal(m, syscall.SIGKILL)
		}
	})
	return ms
}

// groupOf is the cgroup of a contained run's member (cgroup mode), which
// must be named after the run; the test kills it should it outlive it.
func groupOf(t *testing.T, c escapeCase, pid int) string {
	t.Helper()
	if c.mode != "cgroup" {
		return ""
	}
	h, err := cgroup.Find(proc.Host())
	if err != nil {
		t.Fatal(err)
	}
	path, err := proc.Host().Cgroup(pid)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, ok := cgroup.RunOf(path); !ok {
		t.Fatalf("escapee %d is in cgroup %s, want its run's", pid, path)
	}
	dir := h.Dir(path)
	t.Cleanup(func() {
		if _, err := os.Stat(dir); err == nil {
			_ = cgroup.Kill(dir)
			_ = cgroup.Remove(dir, 5*time.Second)
		}
	})
	return dir
}

// withToken lists the processes whose command line holds token: read
// only, never signalled.
func withToken(token string) []string {
	pids, _ := proc.Host().PIDs()
	var out []string
	for _, pid := range pids {
		args, err := proc.Host().Cmdline(pid)
		if err != nil {
			continue
		}
		if cmd := strings.Join(args, " "); strings.Contains(cmd, token) {
			if st, err := proc.Host().Stat(pid); err == nil && !st.Zombie() {
				out = append(out, fmt.Sprintf("%d %q", pid, cmd))
			}
		}
	}
	return out
}

// A renamed or env-cleared member of a contained run is tethered, with
// its run id and name, by its container: check says so, and ps lists it.
func TestContainedMembersAreTethered(t *testing.T) {
	needFull(t, "containment needs Linux's own path")
	if os.Geteuid() != 0 {
		t.Skip("needs root: the test binary, which starts the renamed members, is readable by its user alone")
	}
	for _, mode := range []string{"cgroup", "pidns"} {
		t.Run(mode, func(t *testing.T) {
			name := "contained-" + mode + "-" + itoa(os.Getpid())
			r := startTether(t, helperEnv(modeRenamers, "PROCTEST_STAY=1"), "run", "--contain="+mode, "--name", name, "--", os.Args[0])
			line := r.line(t)
			var ms []procid.ID
			if mode == "pidns" {
				line = hostPIDs(t, r.cmd.Process.Pid, line)
			}
			ms = members(t, line)
			runID := ""
			for _, m := range ms {
				rep, _ := checkJSON(t, nil, itoa(m.PID))
				if !rep.Tethered || rep.Verdict != probe.Supervised || rep.Name != name || !strings.HasPrefix(rep.Container, mode+":") {
					t.Errorf("check %d: %+v; want tethered, supervised, name %s, by its %s", m.PID, rep, name, mode)
				}
				if runID == "" {
					runID = rep.RunID
				} else if rep.RunID != runID {
					t.Errorf("check %d: run id %s, want %s as the others", m.PID, rep.RunID, runID)
				}
			}
			out := tether(t, nil, "ps", "--name", name).stdout
			for _, m := range ms {
				if row := psRow(out, m.PID); !strings.Contains(row, "supervised") {
					t.Errorf("ps --name %s: row of %d is %q; want it listed as supervised\n%s", name, m.PID, row, out)
				}
			}
		})
	}
}

func psRow(out string, pid int) string {
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) > 4 && f[0] == itoa(pid) {
			return line
		}
	}
	return ""
}

// hostPIDs maps the PIDs a process in a PID namespace printed to those
// of this /proc, among the descendants of tether.
func hostPIDs(t *testing.T, tetherPID int, line string) string {
	t.Helper()
	byNS := map[int]int{}
	for _, m := range ptree.Subtree(proc.Host(), tetherPID, 0) {
		if st, err := proc.Host().Status(m.PID); err == nil && len(st.NSpid) > 1 {
			byNS[st.NSpid[len(st.NSpid)-1]] = m.PID
		}
	}
	var out []string
	for _, pid := range pidsOf(line) {
		host, ok := byNS[pid]
		if !ok {
			t.Fatalf("no descendant of tether %d is %d in its PID namespace", tetherPID, pid)
		}
		out = append(out, itoa(host))
	}
	return strings.Join(out, " ")
}

// --contain=cgroup where no cgroup can be made starts nothing: exit 125
// and the reason.
func TestContainCgroupNotWritable(t *testing.T) {
	needFull(t, "containment needs Linux's own path")
	if os.Geteuid() != 0 {
		t.Skip("needs root to run tether as uid 65534, for whom the cgroup hierarchy is not writable")
	}
	dir, err := os.MkdirTemp("", "tether-contain-")
	if err == nil {
		err = os.Chmod(dir, 0o777)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	marker := filepath.Join(dir, "started")
	cmd := exec.Command(tetherBin, "run", "--contain=cgroup", "--", "touch", marker)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	r := tetherCmd(t, cmd, nil)
	if r.code != 125 || !strings.Contains(r.stderr, "cgroup") || strings.Count(r.stderr, "\n") != 1 {
		t.Errorf("run --contain=cgroup as uid 65534: %+v; want exit 125 and one line naming the cgroup", r)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("the command ran; want nothing started")
	}
}

// What doctor says --contain picks is what run --contain uses, as root
// and as uid 65534.
func TestDoctorPicksWhatRunUses(t *testing.T) {
	needFull(t, "containment needs Linux's own path")
	users := map[string]*syscall.Credential{"self": nil}
	if os.Geteuid() == 0 {
		users["65534"] = &syscall.Credential{Uid: 65534, Gid: 65534}
	}
	ownNS, err := os.Readlink("/proc/self/ns/pid")
	if err != nil {
		t.Fatal(err)
	}
	for who, cred := range users {
		t.Run(who, func(t *testing.T) {
			cmd := exec.Command(tetherBin, "doctor", "--json")
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
			var findings []struct {
				Name string `json:"name"`
				Mode string `json:"mode"`
			}
			r := tetherCmd(t, cmd, nil)
			if err := json.Unmarshal([]byte(r.stdout), &findings); err != nil || r.code != 0 {
				t.Fatalf("doctor --json: %+v: %v", r, err)
			}
			mode := ""
			for _, f := range findings {
				if f.Name == "--contain" {
					mode = f.Mode
				}
			}
			cmd = exec.Command(tetherBin, "run", "--contain", "--", "/bin/sh", "-c", "grep ^0:: /proc/self/cgroup; readlink /proc/self/ns/pid")
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
			r = tetherCmd(t, cmd, nil)
			inGroup := strings.Contains(r.stdout, "/tether-")
			inNS := !strings.Contains(r.stdout, ownNS)
			switch {
			case mode == "" && r.code != 125:
				t.Errorf("doctor: --contain fails; run --contain: %+v, want exit 125", r)
			case mode == "cgroup" && (r.code != 0 || !inGroup || inNS):
				t.Errorf("doctor: --contain picks cgroup; run --contain: %+v, want the command in its run's cgroup", r)
			case mode == "pidns" && (r.code != 0 || inGroup || !inNS):
				t.Errorf("doctor: --contain picks pidns; run --contain: %+v, want the command in a PID namespace of its own", r)
			}
			t.Logf("as %s: --contain picks %q", who, mode)
		})
	}
}

func TestContainUsage(t *testing.T) {
	needFull(t, "containment needs Linux's own path")
	wantUsage(t, tether(t, nil, "run", "--contain=jail", "--", "true"), "jail")
	wantUsage(t, tether(t, nil, "run", "--contain", "--exec", "--", "true"), "--exec")
	// Not a command named cgroup.
	wantUsage(t, tether(t, nil, "run", "--contain", "cgroup", "--", "true"), "--contain=cgroup")
	if r := tether(t, nil, "run", "--contain", "true"); r.code != 0 {
		t.Errorf("run --contain true: %+v; want true run, exit 0", r)
	}
}

// A contained command is used from an interactive shell as any other:
// Ctrl-Z stops it with tether and fg continues it, it reads the
// terminal, and one Ctrl-C ends a loop of them. With a PID namespace the
// command is not tether's child but its init's, which cannot stop, so
// the init tells tether, which stops in its place.
func TestInteractiveContained(t *testing.T) {
	needFull(t, "containment needs Linux's own path")
	for _, mode := range []string{"cgroup", "pidns"} {
		if why := containUnavailable(t, escapeCase{mode: mode}); why != "" {
			t.Run(mode, func(t *testing.T) { t.Skip(why) })
			continue
		}
		run := "tether run --contain=" + mode + " -- "
		t.Run(mode+"/stop and fg", func(t *testing.T) {
			b := startBash(t)
			b.typeLine(run + "sh -c 'sleep 1; echo finished-$((6*7))'")
			time.Sleep(300 * time.Millisecond)
			b.keys("\x1a")
			b.expect("Stopped")
			b.typeLine(`fg; echo R""C=$?`)
			if out := b.expect("RC="); !strings.Contains(out, "finished-42") || !strings.Contains(out, "RC=0") {
				t.Errorf("after fg: %q; want the command to finish (finished-42) and rc 0", out)
			}
		})
		t.Run(mode+"/reads the terminal", func(t *testing.T) {
			b := startBash(t)
			b.typeLine(run + `sh -c 'read line; echo got-"$line"'; echo R""C=$?`)
			time.Sleep(300 * time.Millisecond)
			b.typeLine("hello")
			if out := b.expect("RC="); !strings.Contains(out, "got-hello") || !strings.Contains(out, "RC=0") {
				t.Errorf("%q; want the command to read hello from the terminal and exit 0", out)
			}
		})
		t.Run(mode+"/Ctrl-C ends a loop", func(t *testing.T) {
			b := startBash(t)
			b.typeLine(`for i in 1 2 3; do ` + run + `sleep 20; echo step-"$i"; done; echo loop""-over`)
			time.Sleep(500 * time.Millisecond)
			b.keys("\x03")
			b.typeLine("echo after-$((2+3))")
			if out := b.expect("after-5"); strings.Contains(out, "step-1") || strings.Contains(out, "loop-over") {
				t.Errorf("the loop went on after one Ctrl-C: %q; want it ended", out)
			}
		})
	}
}

// Should the supervisor and its watchdog both be killed, the members of a
// contained run are stranded in its cgroup, renamed ones too: check says
// so, and reclaim finds them by the group, ends them and removes it.
func TestReclaimStrandedContained(t *testing.T) {
	needFull(t, "containment needs Linux's own path")
	if why := containUnavailable(t, escapeCase{mode: "cgroup"}); why != "" {
		t.Skip(why)
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root: the test binary, which starts the renamed members, is readable by its user alone")
	}
	name := "stranded-contained-" + itoa(os.Getpid())
	r := startTether(t, helperEnv(modeRenamers, "PROCTEST_STAY=1"), "run", "--contain=cgroup", "--name", name, "--", os.Args[0])
	ms := members(t, r.line(t))
	group := groupOf(t, escapeCase{mode: "cgroup"}, ms[0].PID)
	strand(t, r.cmd.Process.Pid, func() {
		if err := r.cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		r.wait(t)
	})
	for _, m := range ms {
		rep, _ := checkJSON(t, nil, itoa(m.PID))
		if rep.Verdict != probe.Stranded || rep.Name != name || !strings.HasPrefix(rep.Container, "cgroup:") {
			t.Errorf("check %d: %+v; want stranded, name %s, by its cgroup", m.PID, rep, name)
		}
	}
	if res := tether(t, nil, "reclaim", "--name", name, "--grace", "1s"); res.code != 0 {
		t.Errorf("reclaim --name %s: %+v; want exit 0", name, res)
	}
	wantEnded(t, ms, "after reclaim")
	if _, err := os.Stat(group); !os.IsNotExist(err) {
		t.Errorf("cgroup %s still there after reclaim emptied it (%v)", group, err)
	}
}

// perlTERM is a command that prints "ready", reports a TERM it gets as
// "got-TERM" and exits 0; with "leave" it first leaves the process
// group it was started in.
func perlTERM(t *testing.T, leave bool) []string {
	t.Helper()
	perl, err := exec.LookPath("perl")
	if err != nil {
		t.Skip("no perl")
	}
	script := `$| = 1; $SIG{TERM} = sub { print "got-TERM\n"; exit 0 }; print "ready\n"; sleep 60;`
	if leave {
		script = "setpgrp(0, 0); " + script
	}
	return []string{perl, "-e", script}
}

// In a PID namespace the command is the init's child, not tether's: a
// signal for the command alone still reaches it, also once it has left
// the init's process group.
func TestContainedCommandGetsSignals(t *testing.T) {
	needFull(t, "containment needs Linux's own path")
	if why := containUnavailable(t, escapeCase{mode: "pidns"}); why != "" {
		t.Skip(why)
	}
	t.Run("left the group", func(t *testing.T) {
		r := startTether(t, nil, append([]string{"run", "--contain=pidns", "--grace", "30s", "--"}, perlTERM(t, true)...)...)
		if line := r.line(t); line != "ready" {
			t.Fatalf("command printed %q, want ready", line)
		}
		if err := r.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		if line := r.line(t); line != "got-TERM" {
			t.Errorf("after TERM to tether the command printed %q, want got-TERM", line)
		}
		if code := r.wait(t); code != 0 {
			t.Errorf("exit %d, want the command's 0", code)
		}
	})
	t.Run("job member", func(t *testing.T) {
		// In a terminal, inside sh -c: tether is one member of the
		// shell's job, and passes a TERM on to the command alone.
		b := startBash(t)
		cmd := strings.Join(perlTERM(t, false)[:2], " ") + ` '` + perlTERM(t, false)[2] + `'`
		b.typeLine(`sh -c 'tether run --contain=pidns --grace 30s -- ` + strings.ReplaceAll(cmd, `'`, `'\''`) + ` & sleep 1; kill -TERM $!; wait $!; echo R""C=$?'`)
		out := b.expect("RC=")
		if !strings.Contains(out, "got-TERM") || !strings.Contains(out, "RC=0") {
			t.Errorf("%q; want got-TERM from the command and exit 0", out)
		}
	})
}

// A start that fails leaves no cgroup behind.
func TestContainFailedStartLeavesNoGroup(t *testing.T) {
	needFull(t, "containment needs Linux's own path")
	if why := containUnavailable(t, escapeCase{mode: "cgroup"}); why != "" {
		t.Skip(why)
	}
	dir := t.TempDir()
	script := filepath.Join(dir, "bad-interpreter")
	if err := os.WriteFile(script, []byte("#!/nonexistent/interpreter\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	name := "failed-start-" + itoa(os.Getpid())
	if r := tether(t, nil, "run", "--contain=cgroup", "--name", name, "--", script); r.code != 127 && r.code != 126 {
		t.Errorf("run of a script with a missing interpreter: %+v; want 126 or 127", r)
	}
	h, err := cgroup.Find(proc.Host())
	if err != nil {
		t.Fatal(err)
	}
	for _, group := range h.Runs() {
		stamp, _ := cgroup.Stamp(group)
		if slices.Contains(stamp, "TETHER_NAME="+name) {
			t.Errorf("cgroup %s of the failed run left behind", group)
			_ = cgroup.Remove(group, time.Second)
		}
	}
}

// Where the namespaces are refused (root without CAP_SYS_ADMIN, as in a
// container), --contain=pidns is exit 125 naming the mode, not an exec
// failure of the command.
func TestContainPIDNamespaceRefused(t *testing.T) {
	needFull(t, "containment needs Linux's own path")
	setpriv, err := exec.LookPath("setpriv")
	if err != nil || os.Geteuid() != 0 {
		t.Skip("needs root and setpriv(1) to drop CAP_SYS_ADMIN")
	}
	cmd := exec.Command(setpriv, "--bounding-set", "-sys_admin", "--inh-caps", "-sys_admin", "--", tetherBin, "run", "--contain=pidns", "--", "true")
	r := tetherCmd(t, cmd, nil)
	if r.code != 125 || !strings.Contains(r.stderr, "pidns") || strings.Count(r.stderr, "\n") != 1 {
		t.Errorf("run --contain=pidns without CAP_SYS_ADMIN: %+v; want exit 125 and one line naming pidns", r)
	}
}

// As the init of a PID namespace itself (a container's entrypoint),
// tether cannot stop: a contained command stopped by TSTP is continued.
func TestContainedUnderInitContinuesStopped(t *testing.T) {
	needFull(t, "containment needs Linux's own path")
	unshare := needUnshare(t)
	if why := containUnavailable(t, escapeCase{mode: "pidns"}); why != "" {
		t.Skip(why)
	}
	r := startProgram(t, unshare, nil, "--pid", "--fork", "--kill-child", "--mount-proc",
		tetherBin, "run", "--contain=pidns", "--", "/bin/sh", "-c", "kill -TSTP $$; echo continued")
	if line := r.line(t); line != "continued" {
		t.Errorf("printed %q, want continued", line)
	}
	if code := r.wait(t); code != 0 {
		t.Errorf("exit %d, want 0 (stderr %q)", code, r.errOut.String())
	}
}

// A user in a cgroup delegated to them (the directory and its
// cgroup.procs theirs, as systemd hands a user's session subtree over)
// gets cgroup containment; in one whose directory alone is theirs, no
// process can be moved into a new group, so auto takes a PID namespace
// and --contain=cgroup is refused. doctor agrees with run both ways.
func TestContainDelegatedCgroup(t *testing.T) {
	needFull(t, "containment needs Linux's own path")
	if os.Geteuid() != 0 {
		t.Skip("needs root to hand a cgroup over to uid 65534")
	}
	h, err := cgroup.Find(proc.Host())
	if err != nil {
		t.Skip(err)
	}
	own, err := h.Of(proc.Host(), os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	for _, delegated := range []bool{true, false} {
		name := map[bool]string{true: "delegated", false: "directory only"}[delegated]
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(own, fmt.Sprintf("contain-test-%d-%v", os.Getpid(), delegated))
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Skipf("no test cgroup: %v", err)
			}
			t.Cleanup(func() { _ = cgroup.Remove(dir, 5*time.Second) })
			files := []string{dir}
			if delegated {
				files = append(files, filepath.Join(dir, "cgroup.procs"), filepath.Join(dir, "cgroup.threads"), filepath.Join(dir, "cgroup.subtree_control"))
			}
			for _, f := range files {
				if err := os.Chown(f, 65534, 65534); err != nil {
					t.Fatal(err)
				}
			}
			g, err := os.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			as := func(args ...string) result {
				cmd := exec.Command(tetherBin, args...)
				cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534},
					UseCgroupFD: true, CgroupFD: int(g.Fd())}
				return tetherCmd(t, cmd, nil)
			}
			doctor := as("doctor", "--json")
			run := as("run", "--contain", "--", "/bin/sh", "-c", "grep ^0:: /proc/self/cgroup")
			want := `"mode":"pidns"`
			if delegated {
				want = `"mode":"cgroup"`
				if run.code != 0 || !strings.Contains(run.stdout, "/tether-") {
					t.Errorf("run --contain in a delegated cgroup: %+v; want the command in its run's group", run)
				}
			} else {
				if run.code != 0 || strings.Contains(run.stdout, "/tether-") {
					t.Errorf("run --contain where no process can be moved: %+v; want a PID namespace instead", run)
				}
				if r := as("run", "--contain=cgroup", "--", "true"); r.code != 125 || !strings.Contains(r.stderr, "cgroup.procs") {
					t.Errorf("run --contain=cgroup where no process can be moved: %+v; want 125 naming cgroup.procs", r)
				}
			}
			if !strings.Contains(doctor.stdout, want) {
				t.Errorf("doctor --json: %s; want %s", doctor.stdout, want)
			}
		})
	}
}

// What tether's caller opened for the command (3>file, a make
// jobserver's pipe) reaches a contained command at its number, as it
// reaches a plain one: the PID namespace's init and the step that enters
// the cgroup take the numbers after 2 for their own pipe, and hand the
// caller's on. A number left closed stays closed.
func TestContainPassesInheritedDescriptors(t *testing.T) {
	needFull(t, "containment needs Linux's own path")
	for _, mode := range []string{"none", "pidns", "cgroup", "cgroup, clone3 refused"} {
		t.Run(mode, func(t *testing.T) {
			refused := strings.HasSuffix(mode, ", clone3 refused")
			mode := strings.TrimSuffix(mode, ", clone3 refused")
			if mode != "none" {
				if r := tether(t, nil, "run", "--contain="+mode, "--", "true"); r.code != 0 {
					t.Skipf("no %s here: %s", mode, r.stderr)
				}
			}
			dir := t.TempDir()
			open := func(name string) *os.File {
				f, err := os.Create(filepath.Join(dir, name))
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { f.Close() })
				return f
			}
			// fd 3 and fd 5; fd 4 closed.
			args := []string{"run"}
			if mode != "none" {
				args = append(args, "--contain="+mode)
			}
			args = append(args, "--", "/bin/sh", "-c", `echo three >&3; echo five >&5; if [ -e /proc/$$/fd/4 ]; then echo four open; fi`)
			cmd := exec.Command(tetherBin, args...)
			if refused {
				// The command enters the group through tether's own
				// binary, whose descriptor for it comes after the
				// caller's.
				cmd = refusedCmd(t, clone3Cases["clone3 ENOSYS"], nil, args...)
			}
			cmd.ExtraFiles = []*os.File{open("3"), nil, open("5")}
			r := tetherCmd(t, cmd, nil)
			three, _ := os.ReadFile(filepath.Join(dir, "3"))
			five, _ := os.ReadFile(filepath.Join(dir, "5"))
			if r.code != 0 || string(three) != "three\n" || string(five) != "five\n" || r.stdout != "" {
				t.Errorf("exit %d, fd 3 got %q, fd 5 got %q, stdout %q, stderr %q; want 0, three, five, nothing", r.code, three, five, r.stdout, r.stderr)
			}
		})
	}
}
