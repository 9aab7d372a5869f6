package e2e

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/proctest"
	"github.com/tetherproc/tether/internal/ptree"
	"github.com/tetherproc/tether/marker"
	"github.com/tetherproc/tether/probe"
)

// needUnshare skips a test that needs new PID namespaces.
func needUnshare(t *testing.T) string {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("needs root for a new PID namespace")
	}
	path, err := exec.LookPath("unshare")
	if err != nil {
		t.Skip("no unshare(1)")
	}
	return path
}

// hostPIDOf finds, as this /proc numbers it, the live process of this
// test stamped with name that runs deepest in nested PID namespaces (the
// helper, not an unshare that started it).
func hostPIDOf(t *testing.T, name string) int {
	t.Helper()
	var pid int
	proctest.Eventually(t, "the process named "+name, func() bool {
		ms, _ := ptree.Scan(proc.Host(), append(proctest.Env(t), "TETHER_NAME="+name))
		depth := 0
		for _, m := range ms {
			st, err := proc.Host().Status(m.PID)
			if err == nil && len(st.NSpid) > depth {
				pid, depth = m.PID, len(st.NSpid)
			}
		}
		return pid != 0
	})
	return pid
}

// A tether that is the init of a PID namespace stamps its command with
// TETHER_SUPERVISOR=1:START; seen from the host, PID 1 is another process.
// The supervisor is found through the namespace's NSpid lines: the command
// is supervised, and no reclaim from the host signals it.
func TestPIDNamespaceSupervisedFromHost(t *testing.T) {
	unshare := needUnshare(t)
	name := "nsin-" + marker.NewRunID()[:8]
	ns := startProgram(t, unshare, helperEnv(modeSelf, "PROCTEST_STAY=1"),
		"--pid", "--fork", "--kill-child", "--mount-proc", tetherBin, "run", "--name", name, "--", os.Args[0])
	inside := readSelf(t, ns.line(t))
	pid := hostPIDOf(t, name)
	if inside.Env[marker.PIDNamespaceVar] == "" || !strings.HasPrefix(inside.Env[marker.SupervisorVar], "1:") {
		t.Fatalf("stamp inside the namespace %v; want TETHER_SUPERVISOR=1:START and TETHER_PIDNS", inside.Env)
	}
	rep, code := checkJSON(t, nil, strconv.Itoa(pid))
	if code != 0 || rep.Verdict != probe.Supervised || rep.Supervisor == nil || rep.Supervisor.HostPID == 0 || rep.Supervisor.State != probe.SupervisorAlive {
		t.Errorf("check %d from the host: exit %d %+v %+v; want supervised by the namespace's PID 1, found on the host", pid, code, rep, rep.Supervisor)
	}
	for _, args := range [][]string{{"reclaim", "--name", name}, {"reclaim", "--any-user", "--name", name}} {
		if r := tether(t, nil, args...); r.code != 0 || strings.Contains(r.stdout, "gone") {
			t.Errorf("%v: exit %d, %q; want exit 0 and nothing signalled", args, r.code, r.stdout)
		}
	}
	if r := tether(t, nil, "ps", "--name", name); !strings.Contains(r.stdout, "supervised") {
		t.Errorf("ps --name %s: %q; want it listed as supervised", name, r.stdout)
	}
	if deadOrZombie(pid) {
		t.Fatalf("the namespace's command %d was signalled", pid)
	}
}

// The other way round: a command stamped on the host runs inside a new PID
// namespace, and is checked from there. Its supervisor's namespace cannot
// be seen from inside: unverifiable, never stranded.
func TestPIDNamespaceHostStampSeenFromInside(t *testing.T) {
	unshare := needUnshare(t)
	nsenter, err := exec.LookPath("nsenter")
	if err != nil {
		t.Skip("no nsenter(1)")
	}
	name := "nsout-" + marker.NewRunID()[:8]
	run := startTether(t, helperEnv(modeSelf, "PROCTEST_STAY=1"),
		"run", "--name", name, "--", unshare, "--pid", "--fork", "--kill-child", "--mount-proc", os.Args[0])
	inside := readSelf(t, run.line(t))
	pid := hostPIDOf(t, name)
	if rep, c := checkJSON(t, nil, strconv.Itoa(pid)); c != 0 || rep.Verdict != probe.Supervised {
		t.Errorf("check %d from the host: exit %d %+v; want supervised", pid, c, rep)
	}
	r := tetherCmd(t, exec.Command(nsenter, "--target", strconv.Itoa(pid), "--pid", "--mount", tetherBin, "check", strconv.Itoa(inside.PID)), nil)
	if r.code != 4 || !strings.Contains(r.stdout, "cannot see") {
		t.Errorf("check %d from inside its namespace: exit %d, %q; want 4, unverifiable: its supervisor's namespace cannot be seen", inside.PID, r.code, r.stdout)
	}
	r = tetherCmd(t, exec.Command(nsenter, "--target", strconv.Itoa(pid), "--pid", "--mount", tetherBin, "reclaim", "--all", "--any-user"), nil)
	if r.code != 0 || deadOrZombie(pid) {
		t.Errorf("reclaim --all from inside: exit %d, %q; want exit 0 and the command alive", r.code, r.stdout)
	}
}

// A command inside a namespace whose supervisor is gone while the
// namespace lives on is stranded, and reclaimable from the host.
func TestPIDNamespaceStrandedReclaimedFromHost(t *testing.T) {
	needFull(t, "it strands the command with --exec")
	unshare := needUnshare(t)
	name := "nsgone-" + marker.NewRunID()[:8]
	// In the namespace: its init (sleep) outlives a shell that starts
	// tether run --exec, whose supervisor is that shell, and then exits
	// when the test closes its standard input.
	script := `sh -c '"$1" run --exec --outlive-parent --name "$2" -- "$3" </dev/null & read -r _' sh "$@"; exec sleep 300`
	stdin, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	cmd := exec.Command(unshare, "--pid", "--fork", "--kill-child", "--mount-proc", "/bin/sh", "-c", script, "sh", tetherBin, name, os.Args[0])
	cmd.Env = append(append(proctest.CleanEnv(), proctest.Env(t)...), helperEnv(modeSelf, "PROCTEST_STAY=1")...)
	cmd.Stdin = stdin
	out, pw := pipe(t)
	cmd.Stdout, cmd.Stderr = pw, os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	stdin.Close()
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-done })
	readSelf(t, proctest.ReadLine(t, out))
	pid := hostPIDOf(t, name)
	w.Close() // the supervising shell exits
	proctest.Eventually(t, "the command stranded", func() bool {
		rep, _ := checkJSON(t, nil, strconv.Itoa(pid))
		return rep.Verdict == probe.Stranded
	})
	if r := tether(t, nil, "reclaim", "--name", name); r.code != 0 || !strings.Contains(r.stdout, "gone") {
		t.Errorf("reclaim --name %s from the host: exit %d, %q; want the stranded command gone", name, r.code, r.stdout)
	}
	proctest.Eventually(t, "the reclaimed command dead", func() bool { return deadOrZombie(pid) })
}

// In a new PID namespace whose /proc is still the enclosing one's, the
// PIDs /proc shows are not those pidfd_open, kill and wait take: tether
// refuses to run or reclaim there rather than signal by the wrong number.
func TestPIDNamespaceWithoutItsProc(t *testing.T) {
	unshare := needUnshare(t)
	for _, args := range [][]string{{"run", "--", "true"}, {"reclaim", "--dry-run"}} {
		cmd := exec.Command(unshare, append([]string{"--pid", "--fork", tetherBin}, args...)...)
		cmd.Env = append(proctest.CleanEnv(), proctest.Env(t)...)
		out, _ := cmd.CombinedOutput()
		if code := cmd.ProcessState.ExitCode(); code != 125 || !strings.Contains(string(out), "mount a /proc") {
			t.Errorf("unshare --pid --fork tether %v: exit %d, %q; want 125, saying to mount a /proc", args, code, out)
		}
	}
}

// recycleScript runs tether ($1) in a PID namespace of its own on
// recycleCommand, which leaves a TERM-ignoring orphan in a session of its
// own (the cleanup then lasts the grace) and exits. Once the command is
// reaped, its PID, and so its process group's number, is handed to an
// unrelated new session leader (through ns_last_pid). That process must
// outlive the cleanup.
const recycleScript = `t=$1 dir=$2
"$t" run --grace 2s -- /bin/sh "$dir/command.sh" "$dir" &
tp=$!
while [ ! -s "$dir/cmd" ]; do sleep 0.01; done
cmd=$(cat "$dir/cmd")
while [ -e /proc/$cmd ]; do sleep 0.01; done
echo $((cmd - 1)) >/proc/sys/kernel/ns_last_pid
setsid sleep 30 &
victim=$!
if [ "$victim" != "$cmd" ]; then echo "not recycled: $victim, not $cmd"; kill $victim; wait $tp; exit 0; fi
wait $tp
if kill -0 $victim 2>/dev/null; then echo "untouched"; kill $victim; else echo "signalled"; fi
`

// recycleCommand is the command of recycleScript: its orphan ignores
// TERM before the command exits.
const recycleCommand = `dir=$1
setsid /bin/sh -c 'trap "" TERM; : >"$0/ready"; exec sleep 30' "$dir" </dev/null >/dev/null 2>&1 &
while [ ! -e "$dir/ready" ]; do sleep 0.01; done
echo $$ >"$dir/cmd"
`

// Once the command is reaped, its process group's number may be another
// process's: the cleanup never looks the group up by it then (the
// portable path, which has no subreaper, finds the group's members by it
// while the command lives).
func TestRecycledGroupUntouched(t *testing.T) {
	unshare := needUnshare(t)
	dir := t.TempDir()
	script := filepath.Join(dir, "recycle.sh")
	if err := os.WriteFile(script, []byte(recycleScript), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "command.sh"), []byte(recycleCommand), 0o755); err != nil {
		t.Fatal(err)
	}
	r := startProgram(t, unshare, nil, "--pid", "--fork", "--kill-child", "--mount-proc", "/bin/sh", script, tetherBin, dir)
	line := r.line(t)
	switch {
	case strings.HasPrefix(line, "not recycled"):
		t.Skipf("the PID could not be handed over (%s): a thread took it first", line)
	case line != "untouched":
		t.Errorf("the process that took the command's PID after it was reaped: %q; want it untouched", line)
	}
	r.wait(t)
}

// Where the kernel refuses to run a file in memory (vm.memfd_noexec=2,
// set here in a PID namespace of the test's own), the watchdog's waiting
// half is the shell script, and the run goes on as usual.
func TestWatchdogShellWhereMemfdCannotRun(t *testing.T) {
	unshare := needUnshare(t)
	script := `echo 2 >/proc/sys/vm/memfd_noexec 2>/dev/null || { echo no-sysctl; exit 0; }
exec "$0" run -- sh -c 'for c in $(cat /proc/$PPID/task/*/children); do [ "$c" = $$ ] || cat /proc/$c/comm; done; exit 7'`
	cmd := exec.Command(unshare, "--pid", "--fork", "--kill-child", "--mount-proc", "sh", "-c", script, tetherBin)
	cmd.Env = append(proctest.CleanEnv(), proctest.Env(t)...)
	out, err := cmd.Output()
	if strings.TrimSpace(string(out)) == "no-sysctl" {
		t.Skip("no vm.memfd_noexec (Linux before 6.3)")
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 7 {
		t.Fatalf("exit %v, out %q; want the command's 7", err, out)
	}
	// tether's children but the command: the watchdog alone.
	if comms := strings.Fields(string(out)); !slices.Equal(comms, []string{"sh"}) {
		t.Errorf("tether's other children are %q; want the watchdog alone, the shell (sh), not the waiter", comms)
	}
}
