package e2e

import (
	"bufio"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tetherproc/tether/internal/kill"
	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/proctest"
	"github.com/tetherproc/tether/marker"
	"github.com/tetherproc/tether/procid"
)

// Kernels and sandboxes that say no: each case runs tether under a
// seccomp filter that refuses a call as an older kernel (ENOSYS: no
// pidfd_open before 5.3, no clone3 before 5.3, no CLONE_INTO_CGROUP
// before 5.7) or a container's older allow-list (EPERM) does.
var (
	noPidfdOpen       = []proctest.Refusal{{Call: "pidfd_open", Errno: syscall.ENOSYS}}
	pidfdOpenRefused  = []proctest.Refusal{{Call: "pidfd_open", Errno: syscall.EPERM}}
	noPidfdSendSignal = []proctest.Refusal{{Call: "pidfd_send_signal", Errno: syscall.ENOSYS}}
	noPidfds          = []proctest.Refusal{{Call: "pidfd_open", Errno: syscall.ENOSYS}, {Call: "pidfd_send_signal", Errno: syscall.ENOSYS}, {Call: "pidfd_getfd", Errno: syscall.ENOSYS}}
	pidfdCases        = map[string][]proctest.Refusal{
		"pidfd_open ENOSYS": noPidfdOpen, "pidfd_open EPERM": pidfdOpenRefused,
		"pidfd_send_signal ENOSYS": noPidfdSendSignal, "all pidfd ENOSYS": noPidfds,
	}
	clone3Cases = map[string][]proctest.Refusal{
		"clone3 ENOSYS":              {{Call: "clone3", Errno: syscall.ENOSYS}},
		"clone3 EPERM":               {{Call: "clone3", Errno: syscall.EPERM}},
		"clone3 EINVAL (5.3 to 5.6)": {{Call: "clone3", Errno: syscall.EINVAL}},
	}
)

// refusedCmd is tether with args under a filter that refuses refuse.
func refusedCmd(t *testing.T, refuse []proctest.Refusal, env []string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := proctest.Refusing(t, refuse, append([]string{tetherBin}, args...)...)
	cmd.Env = append(cmd.Env, env...)
	return cmd
}

// refused runs tether with args under the filter, as tether does.
func refused(t *testing.T, refuse []proctest.Refusal, args ...string) result {
	t.Helper()
	return tetherCmd(t, refusedCmd(t, refuse, nil, args...), nil)
}

// Without pidfds tether runs, and the caller's chain (the test, go test
// above it) is followed by looking at it: the exit status is the
// command's, not 125.
func TestRefusedPidfdRun(t *testing.T) {
	needFull(t, "the full path's pidfds")
	for name, refuse := range pidfdCases {
		t.Run(name, func(t *testing.T) {
			r := refused(t, refuse, "run", "--", "/bin/sh", "-c", "exit 3")
			if r.code != 3 || r.stderr != "" {
				t.Errorf("exit %d, stderr %q; want 3 and nothing", r.code, r.stderr)
			}
		})
	}
}

// Without pidfds a SIGKILL of tether still ends its whole tree: the
// command by its parent-death signal, a grandchild in a session of its
// own by the watchdog, which signals with kill(2) after a fresh look.
func TestRefusedPidfdSIGKILL(t *testing.T) {
	t.Parallel() // its own runs; it waits more than it works
	needFull(t, "the full path's pidfds")
	for name, refuse := range pidfdCases {
		t.Run(name, func(t *testing.T) {
			cmd := refusedCmd(t, refuse, nil, "run", "--", "/bin/sh", "-c", `setsid sleep 300 & echo $!; exec sleep 300`)
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			line, err := bufio.NewReader(out).ReadString('\n')
			pid, perr := strconv.Atoi(strings.TrimSpace(line))
			if err != nil || perr != nil {
				t.Fatalf("the command printed %q: %v %v", line, err, perr)
			}
			st, err := proc.Host().Stat(pid)
			if err != nil {
				t.Fatal(err)
			}
			// The watchdog hears of the group at once; the list of the
			// tree at the first tick.
			time.Sleep(400 * time.Millisecond)
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			m := procid.ID{PID: pid, StartTime: st.StartTime}
			proctest.Eventually(t, "the setsid grandchild gone after tether's SIGKILL", func() bool {
				p, err := proc.Host().Process(pid)
				return err != nil || p.StartTime != m.StartTime || p.Zombie
			})
		})
	}
}

// Without pidfds a stranded run is still reclaimed: checked again, then
// signalled with kill(2).
func TestRefusedPidfdReclaim(t *testing.T) {
	needFull(t, "the full path's pidfds")
	for name, refuse := range pidfdCases {
		t.Run(name, func(t *testing.T) {
			runID := marker.NewRunID()
			p := proctest.Start(t, proctest.Wait, proctest.Spec{Env: strandedEnv(t, "old", runID)})
			r := refused(t, refuse, "reclaim", "--run-id", runID)
			if r.code != 0 || !strings.Contains(r.stdout, "gone") {
				t.Errorf("reclaim: exit %d, %q %q; want 0 and the process gone", r.code, r.stdout, r.stderr)
			}
			waitGone(t, p, "the stranded process")
		})
	}
}

// Without pidfds wait --pid still ends at once when the process is
// gone: exit 3, not the timeout's 1.
func TestRefusedPidfdWaitPID(t *testing.T) {
	t.Parallel() // its own runs; it waits more than it works
	needFull(t, "the full path's pidfds")
	for name, refuse := range pidfdCases {
		t.Run(name, func(t *testing.T) {
			sleeper := exec.Command("/bin/sleep", "0.3")
			sleeper.Env = proctest.Env(t)
			if err := sleeper.Start(); err != nil {
				t.Fatal(err)
			}
			go func() { _ = sleeper.Wait() }()
			// Port 1 (tcpmux): nothing listens there, and no test side
			// by side picks it, as one could pick a port found free.
			r := refused(t, refuse, "wait", "--port", "1", "--pid", strconv.Itoa(sleeper.Process.Pid), "--timeout", "60s")
			if r.code != 3 {
				t.Errorf("wait: exit %d, %q; want 3, the process gone first", r.code, r.stderr)
			}
		})
	}
}

// doctor says which path this machine takes.
func TestRefusedDoctor(t *testing.T) {
	needFull(t, "the full path's pidfds")
	r := refused(t, noPidfdOpen, "doctor")
	if !strings.Contains(r.stdout, "pidfd_open: function not implemented") || !strings.Contains(r.stdout, "kill(2)") {
		t.Errorf("doctor without pidfd_open:\n%s", r.stdout)
	}
	if os.Geteuid() != 0 {
		return
	}
	r = refused(t, clone3Cases["clone3 EPERM"], "doctor")
	if cgroupOK := strings.Contains(r.stdout, "cgroup v2:            yes"); cgroupOK && !strings.Contains(r.stdout, "clone3 with CLONE_INTO_CGROUP: operation not permitted") {
		t.Errorf("doctor with clone3 refused:\n%s", r.stdout)
	}
}

// Where clone3 (or its CLONE_INTO_CGROUP) is refused, a contained
// command still runs in its run's cgroup from its first instruction: it
// enters the group through tether's own binary before it runs. Its
// escapees (a setsid, env-cleared grandchild) go with a SIGKILL of
// tether.
func TestRefusedClone3Contained(t *testing.T) {
	needFull(t, "containment needs Linux's own path")
	if os.Geteuid() != 0 {
		t.Skip("needs root: the cgroup is made below root's")
	}
	if r := tether(t, nil, "run", "--contain=cgroup", "--", "true"); r.code != 0 {
		t.Skipf("no cgroup here to contain in: %s", r.stderr)
	}
	for name, refuse := range clone3Cases {
		t.Run(name, func(t *testing.T) {
			for _, mode := range []string{"cgroup", "auto"} {
				r := refused(t, refuse, "run", "--contain="+mode, "--", "/bin/sh", "-c", "tail -n 1 /proc/self/cgroup; exit 3")
				if r.code != 3 || !strings.Contains(r.stdout, "/tether-") || r.stderr != "" {
					t.Errorf("--contain=%s: exit %d, %q %q; want 3, in a tether group, silent", mode, r.code, r.stdout, r.stderr)
				}
			}
			cmd := refusedCmd(t, refuse, nil, "run", "--contain=cgroup", "--", "/bin/sh", "-c", `setsid env -i /bin/sleep 300 & echo $!; exec sleep 300`)
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			line, _ := bufio.NewReader(out).ReadString('\n')
			pid, err := strconv.Atoi(strings.TrimSpace(line))
			if err != nil {
				t.Fatalf("the command printed %q", line)
			}
			st, err := proc.Host().Stat(pid)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = kill.Signal(procid.ID{PID: pid, StartTime: st.StartTime}, syscall.SIGKILL) })
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			proctest.Eventually(t, "the env-cleared escapee gone with its cgroup", func() bool {
				p, err := proc.Host().Process(pid)
				return err != nil || p.StartTime != st.StartTime || p.Zombie
			})
		})
	}
}

// On a host without cgroup v2 (v1 only: here, a private mount namespace
// with the cgroup2 mount gone), --contain (auto) steps down to a PID
// namespace and says so in one line; --contain=cgroup exits 125 naming
// what is missing, never 126 or 127.
func TestCgroupV1Host(t *testing.T) {
	needFull(t, "containment needs Linux's own path")
	if os.Geteuid() != 0 {
		t.Skip("needs root: a private mount namespace")
	}
	mount := cgroup2Mount(t)
	if mount == "" {
		t.Skip("no cgroup2 mount here to take away")
	}
	script := `umount -l "$1" || exit 99; shift; exec "$@"`
	run := func(args ...string) result {
		cmd := exec.Command("unshare", append([]string{"-m", "--propagation", "private", "/bin/sh", "-c", script, "sh", mount, tetherBin}, args...)...)
		return tetherCmd(t, cmd, nil)
	}
	r := run("run", "--contain", "--", "/bin/sh", "-c", "exit 3")
	if r.code != 3 || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, "contained in a PID namespace") || !strings.Contains(r.stderr, "cgroup") {
		t.Errorf("--contain: exit %d, stderr %q; want 3 and one line saying it stepped down to a PID namespace", r.code, r.stderr)
	}
	r = run("run", "--contain=cgroup", "--", "true")
	if r.code != 125 || !strings.Contains(r.stderr, "cgroup v2") {
		t.Errorf("--contain=cgroup: exit %d, stderr %q; want 125 naming cgroup v2", r.code, r.stderr)
	}
}

// cgroup2Mount is where cgroup2 is mounted, from mountinfo; "" for none.
func cgroup2Mount(t *testing.T) string {
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if _, after, ok := strings.Cut(line, " - "); ok && strings.HasPrefix(after, "cgroup2 ") {
			return strings.Fields(line)[4]
		}
	}
	return ""
}

// A Host's Stop and Close end each child's whole tree where the kernel
// gives no pidfd (before 5.3: the child is looked at through /proc), and
// where waitid cannot take one (5.3: the Host reads /proc to know whether
// the child was reaped, and Go's own Wait takes wait4).
func TestRefusedPidfdHostStop(t *testing.T) {
	needFull(t, "the full path's pidfds")
	cases := map[string][]proctest.Refusal{
		"all pidfd ENOSYS":       noPidfds,
		"waitid P_PIDFD, as 5.3": {{Call: "waitid", Errno: syscall.EINVAL}},
	}
	for name, refuse := range cases {
		t.Run(name, func(t *testing.T) {
			c := proctest.Refusing(t, refuse, hostprog(t), "tree", "2")
			c.Env = append(c.Env, proctest.Env(t)...)
			cmd, stdin, lines, runs, trees := hostTreeOf(t, c)
			stopOneThenClose(t, cmd, stdin, lines, runs, trees)
		})
	}
}
