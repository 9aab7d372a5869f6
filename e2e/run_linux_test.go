package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/proctest"
	"github.com/tetherproc/tether/marker"
	"github.com/tetherproc/tether/probe"
)

// running is a tether started in the background by a test.
type running struct {
	cmd    *exec.Cmd
	out    *bufio.Reader
	done   chan struct{}
	code   int
	errOut strings.Builder
}

// startTether starts the built binary with args, its output readable line
// by line. It is killed (the test started it) and reaped when the test ends.
func startTether(t *testing.T, env []string, args ...string) *running {
	t.Helper()
	return startProgram(t, tetherBin, env, args...)
}

// startProgram is startTether for another program (unshare, a shell).
func startProgram(t *testing.T, path string, env []string, args ...string) *running {
	t.Helper()
	return startAs(t, nil, path, env, args...)
}

// startAs is startProgram as another user (cred), or as the test's own
// (nil).
func startAs(t *testing.T, cred *syscall.Credential, path string, env []string, args ...string) *running {
	t.Helper()
	cmd := exec.Command(path, args...)
	if cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	}
	cmd.Env = append(append(proctest.CleanEnv(), proctest.Env(t)...), env...)
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	// A descendant that escaped would hold stderr open, and Wait with it.
	cmd.WaitDelay = 10 * time.Second
	r := &running{cmd: cmd, out: bufio.NewReader(pr), done: make(chan struct{})}
	cmd.Stdout = pw
	cmd.Stderr = &r.errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	go func() {
		err := cmd.Wait()
		r.code = cmd.ProcessState.ExitCode()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			r.code = 128 + int(ws.Signal())
		}
		_ = err
		close(r.done)
	}()
	t.Cleanup(func() {
		select {
		case <-r.done:
		default:
			_ = cmd.Process.Kill()
			<-r.done
		}
		pr.Close()
		wantNoTraceback(t, path+" "+strings.Join(args, " "), r.errOut.String())
	})
	return r
}

// line reads the next line of tether's output, failing the test after a
// generous deadline. Call it from the test's goroutine only; elsewhere use
// readLine.
func (r *running) line(t *testing.T) string {
	t.Helper()
	s, err := r.readLine()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// readLine is line without t, for goroutines other than the test's, which
// must not call t.Fatal.
func (r *running) readLine() (string, error) {
	ch := make(chan string, 1)
	go func() {
		s, _ := r.out.ReadString('\n')
		ch <- strings.TrimSpace(s)
	}()
	select {
	case s := <-ch:
		return s, nil
	case <-time.After(10 * time.Second):
		return "", fmt.Errorf("no output from tether %d within 10s, want a line (stderr %q)", r.cmd.Process.Pid, r.errOut.String())
	}
}

func (r *running) wait(t *testing.T) int {
	t.Helper()
	select {
	case <-r.done:
		wantNoTraceback(t, "tether "+strings.Join(r.cmd.Args[1:], " "), r.errOut.String())
		return r.code
	case <-time.After(20 * time.Second):
		t.Fatalf("tether %d did not exit within 20s, want it to have exited", r.cmd.Process.Pid)
		return 0
	}
}

// modeSelf prints what the command sees of itself as JSON (a self), then
// exits or, with PROCTEST_STAY set, stays.
var modeSelf = proctest.Register("self", func() {
	env := map[string]string{}
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok && strings.HasPrefix(k, "TETHER") {
			env[k] = v
		}
	}
	fg, _ := unix.IoctlGetInt(0, unix.TIOCGPGRP)
	_ = json.NewEncoder(os.Stdout).Encode(map[string]any{
		"pid": os.Getpid(), "ppid": os.Getppid(), "pgrp": unix.Getpgrp(), "fg": fg,
		"env": env, "args": os.Args[1:],
	})
	if os.Getenv("PROCTEST_STAY") != "" {
		forever()
	}
})

// self is what the modeSelf helper reports.
type self struct {
	PID  int               `json:"pid"`
	PPID int               `json:"ppid"`
	Pgrp int               `json:"pgrp"`
	FG   int               `json:"fg"`
	Env  map[string]string `json:"env"`
	Args []string          `json:"args"`
}

func readSelf(t *testing.T, line string) self {
	t.Helper()
	s, err := parseSelf(line)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// parseSelf is readSelf without t, for goroutines other than the test's.
func parseSelf(line string) (self, error) {
	var s self
	if err := json.Unmarshal([]byte(line), &s); err != nil {
		return s, fmt.Errorf("helper said %q, want its JSON self-report: %v", line, err)
	}
	return s, nil
}

// pipe is an OS pipe: a helper given its write end as stdout needs no
// copying goroutine, whose Wait would hang for as long as a grandchild
// holds the pipe open.
func pipe(t *testing.T) (*os.File, *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	return r, w
}

// deadOrZombie reports whether pid no longer runs. On these machines
// PID 1 may not reap, so an orphan that exited can stay a zombie.
func deadOrZombie(pid int) bool {
	p, err := proc.Host().Process(pid)
	return err != nil || p.Zombie
}

func TestRunExitStatus(t *testing.T) {
	notExec := t.TempDir() + "/script"
	if err := os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		env  []string
		args []string
		code int
	}{
		{"own status", helperEnv(proctest.Exit, "PROCTEST_STATUS=3"), []string{os.Args[0]}, 3},
		{"zero", helperEnv(proctest.Exit), []string{os.Args[0]}, 0},
		{"killed by TERM", nil, []string{"/bin/sh", "-c", "kill -TERM $$"}, 143},
		{"killed by KILL", nil, []string{"/bin/sh", "-c", "kill -KILL $$"}, 137},
		{"not found", nil, []string{"no-such-command-anywhere"}, 127},
		{"not found, path", nil, []string{"/no/such/file"}, 127},
		{"not executable", nil, []string{notExec}, 126},
		{"a directory", nil, []string{"/"}, 126},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tether(t, tt.env, append([]string{"run", "--"}, tt.args...)...)
			if r.code != tt.code {
				t.Errorf("exit %d, want %d (stderr %q)", r.code, tt.code, r.stderr)
			}
			if tt.code >= 126 && tt.code <= 127 && (strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, tt.args[0])) {
				t.Errorf("stderr %q: want one line naming %s", r.stderr, tt.args[0])
			}
		})
	}
}

func TestRunBadInput(t *testing.T) {
	tests := []struct {
		args []string
		bad  string
	}{
		{[]string{"run"}, "no command"},
		{[]string{"run", "--"}, "no command"},
		{[]string{"run", "--signal", "FOO", "--", "true"}, `"FOO"`},
		{[]string{"run", "--signal", "0", "--", "true"}, `"0"`},
		{[]string{"run", "--signal", "99", "--", "true"}, `"99"`},
		{[]string{"run", "--grace", "abc", "--", "true"}, `"abc"`},
		{[]string{"run", "--grace", "-1s", "--", "true"}, `-1s`},
		{[]string{"run", "--name", "a=b", "--", "true"}, `"a=b"`},
		{[]string{"run", "--name", strings.Repeat("x", 65), "--", "true"}, strings.Repeat("x", 65)},
		{[]string{"run", "--marker-var", "1X", "--", "true"}, `"1X"`},
		{[]string{"run", "--bogus", "--", "true"}, "bogus"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			wantUsage(t, tether(t, nil, tt.args...), tt.bad)
		})
	}
}

// Everything after -- (or after the first argument that is not a flag)
// is the command's, help-looking words included.
func TestRunCommandLine(t *testing.T) {
	r := tether(t, nil, "run", "--", "/bin/sh", "-c", `echo "$@"`, "sh", "-h", "--name", "x", "--help")
	if r.code != 0 || r.stdout != "-h --name x --help\n" {
		t.Errorf("%+v; want exit 0 and stdout \"-h --name x --help\"", r)
	}
	r = tether(t, nil, "run", "/bin/echo", "--grace", "1s")
	if r.code != 0 || r.stdout != "--grace 1s\n" {
		t.Errorf("%+v; want exit 0 and stdout \"--grace 1s\"", r)
	}
	// "h" is a command here, not the help subcommand.
	r = tether(t, nil, "run", "--", "h")
	if r.code != 127 || !strings.Contains(r.stderr, "h: command not found") {
		t.Errorf("run -- h: %+v; want exit 127 and \"h: command not found\"", r)
	}
}

func TestRunStampsMarkers(t *testing.T) {
	tr := startTether(t, helperEnv(modeSelf, "PROCTEST_STAY=1"), "run", "--name", "web", "--", os.Args[0], "--name", "x")
	s := readSelf(t, tr.line(t))
	tpid := tr.cmd.Process.Pid
	if s.PPID != tpid || s.Pgrp != s.PID {
		t.Errorf("ppid %d pgrp %d, want %d and its own %d", s.PPID, s.Pgrp, tpid, s.PID)
	}
	if s.Env["TETHER"] != "1" || s.Env["TETHER_NAME"] != "web" || s.Env["TETHER_RUN_ID"] == "" || marker.ValidateRunID(s.Env["TETHER_RUN_ID"]) != nil {
		t.Errorf("markers %v, want TETHER=1, TETHER_NAME=web and a valid TETHER_RUN_ID", s.Env)
	}
	sup, err := proctest.SupervisorOf(tpid)
	if err != nil || s.Env["TETHER_SUPERVISOR"] != sup.String() {
		t.Errorf("TETHER_SUPERVISOR %q, want %q (%v)", s.Env["TETHER_SUPERVISOR"], sup, err)
	}
	if strings.Join(s.Args, " ") != "--name x" {
		t.Errorf("args %q, want [--name x]", s.Args)
	}
	rep, code := checkJSON(t, nil, "--name", "web", strconv.Itoa(s.PID))
	if code != 0 || rep.Verdict != probe.Supervised {
		t.Errorf("check: exit %d %+v, want exit 0, supervised", code, rep)
	}
	// TERM to tether is forwarded; the helper dies of it.
	_ = tr.cmd.Process.Signal(syscall.SIGTERM)
	if code := tr.wait(t); code != 143 {
		t.Errorf("exit %d after TERM, want 143", code)
	}
	if !deadOrZombie(s.PID) {
		t.Errorf("command %d still running after tether exited", s.PID)
	}
}

func TestRunDefaultName(t *testing.T) {
	tr := startTether(t, helperEnv(modeSelf), "run", "--", os.Args[0])
	s := readSelf(t, tr.line(t))
	if want := marker.NameFor(os.Args[0]); s.Env["TETHER_NAME"] != want {
		t.Errorf("name %q, want %q", s.Env["TETHER_NAME"], want)
	}
	tr.wait(t)
}

// modeSleep blocks until killed; stdin is ignored so that only tether
// can end it.
var modeSleep = proctest.Register("sleep", forever)

// modeIgnoreTerm blocks and ignores SIGTERM: only KILL ends it.
var modeIgnoreTerm = proctest.Register("ignore-term", func() {
	signal.Ignore(syscall.SIGTERM)
	fmt.Println("ready")
	forever()
})

// modeDoubleFork starts a setsid sleeper and exits: the sleeper is
// orphaned at once.
var modeDoubleFork = proctest.Starts(proctest.Register("double-fork", func() {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), proctest.Mode(modeSleep))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	_ = cmd.Start()
}), modeSleep)

// modeTree starts a process of each hard kind — same group, setsid,
// ignoring TERM, double-forked — prints "ready", then exits with
// PROCTEST_STATUS or, with PROCTEST_STAY set, stays.
var modeTree = proctest.Starts(proctest.Register("tree", func() {
	for _, c := range []struct {
		mode   string
		setsid bool
	}{{modeSleep, false}, {modeSleep, true}, {modeIgnoreTerm, false}, {modeDoubleFork, false}} {
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), proctest.Mode(c.mode))
		if c.setsid {
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		}
		if err := cmd.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		if c.mode == modeDoubleFork {
			_ = cmd.Wait()
		}
	}
	fmt.Println("ready")
	if os.Getenv("PROCTEST_STAY") != "" {
		forever()
	}
	code, _ := strconv.Atoi(os.Getenv("PROCTEST_STATUS"))
	os.Exit(code)
}), modeSleep, modeIgnoreTerm, modeDoubleFork)

// modeSignals prints the name of every signal tether forwards as it
// arrives; SIGTERM ends it with status 0.
var modeSignals = proctest.Register("signals", func() {
	ch := make(chan os.Signal, 16)
	signal.Notify(ch, syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTERM,
		syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGWINCH)
	fmt.Println("ready")
	for s := range ch {
		fmt.Println(unix.SignalName(s.(syscall.Signal)))
		if s == syscall.SIGTERM {
			os.Exit(0)
		}
	}
})

// zombieChildren counts the zombies among pid's children.
func zombieChildren(pid int) (n int) {
	tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	for _, task := range tasks {
		data, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/children", pid, task.Name()))
		for _, c := range pidsOf(string(data)) {
			if p, err := proc.Host().Process(c); err == nil && p.Zombie {
				n++
			}
		}
	}
	return n
}

// modeOrphans makes 20 orphans that exit at once, then waits: tether,
// as subreaper, must reap them all.
var modeOrphans = proctest.Register("orphans", func() {
	for i := 0; i < 20; i++ {
		cmd := exec.Command("/bin/sh", "-c", "/bin/true & exit 0")
		_ = cmd.Run()
	}
	fmt.Println("ready")
	forever()
})

// modeCaller runs tether with the arguments in PROCTEST_ARGS (one per
// line), prints tether's PID, and waits: the test kills it.
var modeCaller = proctest.Register("caller", func() {
	args := strings.Split(os.Getenv("PROCTEST_ARGS"), "\n")
	cmd := exec.Command(os.Getenv("PROCTEST_TETHER"), args...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	fmt.Println(cmd.Process.Pid)
	_ = cmd.Wait()
	forever()
})

// startCaller starts a helper that plays tether's caller (a shell, make)
// and runs tether with args, whose command is the modeSelf helper. It returns
// the caller, the write end of its stdout (to close once it is killed),
// tether's PID and what the command said of itself.
func startCaller(t *testing.T, args []string) (*proctest.Proc, *os.File, int, self) {
	t.Helper()
	pr, pw := pipe(t)
	caller := proctest.Start(t, modeCaller, proctest.Spec{
		Env:    []string{"PROCTEST_TETHER=" + tetherBin, "PROCTEST_ARGS=" + strings.Join(args, "\n")},
		Stdout: pw,
	})
	br := bufio.NewReader(pr)
	tpid, _ := strconv.Atoi(proctest.ReadLine(t, br))
	return caller, pw, tpid, readSelf(t, proctest.ReadLine(t, br))
}

// The caller of tether (a shell, make) is killed with SIGKILL: the
// command goes soon after.
func TestRunCallerKilled(t *testing.T) {
	for _, mode := range []string{"supervise", "exec"} {
		t.Run(mode, func(t *testing.T) {
			args := []string{"run"}
			if mode == "exec" {
				needFull(t, "--exec arms the parent-death signal")
				args = append(args, "--exec")
			}
			args = append(args, "--", "/usr/bin/env", proctest.Mode(modeSelf), "PROCTEST_STAY=1", os.Args[0])
			caller, pw, tpid, s := startCaller(t, args)
			if mode == "exec" && s.PID != tpid {
				t.Errorf("--exec: command PID %d, tether's %d; want the same", s.PID, tpid)
			}
			if deadOrZombie(s.PID) {
				t.Fatalf("command %d not running before its caller was killed; want it running", s.PID)
			}
			_ = caller.Cmd.Process.Kill()
			<-caller.Done()
			pw.Close()
			proctest.Eventually(t, "command gone after its caller's caller died", func() bool { return deadOrZombie(s.PID) })
			proctest.Eventually(t, "tether gone", func() bool { return deadOrZombie(tpid) })
		})
	}
}

// With --outlive-parent, the caller's death is not passed on. The command
// is the "signals" helper, which names every signal it gets: after the
// caller is gone, SIGWINCH to tether must reach it first. A SIGTERM from
// the caller's death would have come before it: the kernel sends the
// parent-death signal as it reparents tether, before the caller can be
// reaped, and pending signals are delivered lowest number first, so the
// order proves the negative without a sleep.
func TestRunOutliveParent(t *testing.T) {
	args := []string{"run", "--outlive-parent", "--", "/usr/bin/env", proctest.Mode(modeSignals), os.Args[0]}
	pr, pw := pipe(t)
	caller := proctest.Start(t, modeCaller, proctest.Spec{
		Env:    []string{"PROCTEST_TETHER=" + tetherBin, "PROCTEST_ARGS=" + strings.Join(args, "\n")},
		Stdout: pw,
	})
	br := bufio.NewReader(pr)
	tpid, err := strconv.Atoi(proctest.ReadLine(t, br))
	if err != nil {
		t.Fatalf("caller's first line: %v, want tether's PID", err)
	}
	// tether is this test's descendant: whatever happens, end it, and it
	// ends the command.
	t.Cleanup(func() {
		if !deadOrZombie(tpid) {
			_ = syscall.Kill(tpid, syscall.SIGTERM)
		}
	})
	if line := proctest.ReadLine(t, br); line != "ready" {
		t.Fatalf("command said %q, want ready", line)
	}
	_ = caller.Cmd.Process.Kill()
	<-caller.Done()
	pw.Close()
	if p, err := proc.Host().Process(tpid); err != nil || p.Zombie || p.PPID == caller.PID() {
		t.Fatalf("tether %d after its caller %d was reaped: %+v, %v; want it running, reparented", tpid, caller.PID(), p, err)
	}
	if err := syscall.Kill(tpid, syscall.SIGWINCH); err != nil {
		t.Fatal(err)
	}
	if line := proctest.ReadLine(t, br); line != "SIGWINCH" {
		t.Fatalf("after its caller died, the command got %q, want SIGWINCH first: --outlive-parent passed on the caller's death", line)
	}
	_ = syscall.Kill(tpid, syscall.SIGTERM)
	if line := proctest.ReadLine(t, br); line != "SIGTERM" {
		t.Errorf("after TERM to tether, the command got %q, want SIGTERM", line)
	}
	proctest.Eventually(t, "tether gone after TERM", func() bool { return deadOrZombie(tpid) })
}

func TestRunExec(t *testing.T) {
	needFull(t, "--exec arms the parent-death signal")
	tr := startTether(t, helperEnv(modeSelf, "PROCTEST_STAY=1"), "run", "--exec", "--name", "web", "--", os.Args[0])
	s := readSelf(t, tr.line(t))
	if s.PID != tr.cmd.Process.Pid {
		t.Errorf("command PID %d, tether's %d: not executed in place", s.PID, tr.cmd.Process.Pid)
	}
	sup, _ := proctest.SupervisorOf(os.Getpid())
	if s.Env["TETHER"] != "1" || s.Env["TETHER_NAME"] != "web" || s.Env["TETHER_SUPERVISOR"] != sup.String() {
		t.Errorf("markers %v, want supervisor %s", s.Env, sup)
	}
	rep, code := checkJSON(t, nil, "--name", "web", strconv.Itoa(s.PID))
	if code != 0 || rep.Verdict != probe.Supervised {
		t.Errorf("check: exit %d %+v, want exit 0, supervised", code, rep)
	}
	_ = tr.cmd.Process.Signal(syscall.SIGTERM)
	if code := tr.wait(t); code != 143 {
		t.Errorf("exit %d after TERM, want 143", code)
	}
}

// stress skips t unless TETHER_LONG is set: the long runs of the
// reliability tests are kept out of the default suite, which runs a few
// trials of each instead.
func stress(t *testing.T) {
	t.Helper()
	if os.Getenv("TETHER_LONG") == "" {
		t.Skip("stress test: set TETHER_LONG=1")
	}
}

// tether killed with SIGKILL at a random moment in its first 50 ms —
// before, while or after the command starts: nothing of the tree survives,
// setsid and double-forked grandchildren included, with no reclaim run.
// A few trials; TestRunSurvivesOwnSIGKILLStress runs 200.
func TestRunSurvivesOwnSIGKILL(t *testing.T) { runSurvivesOwnSIGKILL(t, 3) }

func TestRunSurvivesOwnSIGKILLStress(t *testing.T) {
	stress(t)
	runSurvivesOwnSIGKILL(t, 200)
}

func runSurvivesOwnSIGKILL(t *testing.T, n int) {
	var worst time.Duration
	for i := 0; i < n; i++ {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			tr := startTether(t, helperEnv(modeTree, "PROCTEST_STAY=1"), "run", "--grace", "1s", "--", os.Args[0])
			// Not awaiting anything: the moment of the kill is what
			// varies from trial to trial.
			time.Sleep(time.Duration(rand.IntN(50_000)) * time.Microsecond)
			_ = tr.cmd.Process.Kill()
			tr.wait(t)
			killed := time.Now()
			id := proctest.TestID(t)
			deadline := killed.Add(10 * time.Second)
			for {
				left, _ := proctest.Alive(id)
				if len(left) == 0 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("alive 10s after tether was killed: %v; want none of the tree", left)
				}
				time.Sleep(10 * time.Millisecond)
			}
			worst = max(worst, time.Since(killed))
		})
	}
	t.Logf("%d trials; slowest until the whole tree was gone: %v (grace 1s)", n, worst)
}

// tether killed right after its command forked a setsid grandchild that
// may still be in the middle of its execve, when its environment can read
// as empty: the watchdog must not take one empty scan for the end.
// A few trials; TestRunSIGKILLWhileGrandchildExecsStress runs 200.
func TestRunSIGKILLWhileGrandchildExecs(t *testing.T) { runSIGKILLWhileGrandchildExecs(t, 3) }

func TestRunSIGKILLWhileGrandchildExecsStress(t *testing.T) {
	stress(t)
	runSIGKILLWhileGrandchildExecs(t, 200)
}

func runSIGKILLWhileGrandchildExecs(t *testing.T, n int) {
	for i := 0; i < n; i++ {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			tr := startTether(t, nil, "run", "--grace", "1s", "--", "/bin/sh", "-c", "setsid sleep 1000 & echo $!; exec sleep 1000")
			gpid, err := strconv.Atoi(tr.line(t))
			if err != nil {
				t.Fatalf("command's first line: %v, want the grandchild's PID", err)
			}
			_ = tr.cmd.Process.Kill()
			tr.wait(t)
			proctest.Eventually(t, "setsid grandchild gone", func() bool { return deadOrZombie(gpid) })
		})
	}
}

// As the init of a PID namespace, tether reaps every orphan and forwards
// signals.
func TestRunAsPIDNamespaceInit(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root for a new PID namespace")
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Skip("no unshare(1)")
	}
	cmd := exec.Command(unshare, "--pid", "--fork", "--mount-proc", tetherBin, "run", "--", os.Args[0])
	cmd.Env = append(append(proctest.CleanEnv(), proctest.Env(t)...), helperEnv(modeOrphans)...)
	pr, pw, _ := os.Pipe()
	cmd.Stdout, cmd.Stderr = pw, os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-done
		pr.Close()
	})
	if line := proctest.ReadLine(t, pr); line != "ready" {
		t.Fatalf("helper said %q, want ready", line)
	}
	var init int
	proctest.Eventually(t, "tether running as the namespace's init", func() bool {
		data, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", cmd.Process.Pid, cmd.Process.Pid))
		kids := pidsOf(string(data))
		if len(kids) == 1 {
			init = kids[0]
		}
		return init != 0
	})
	proctest.Eventually(t, "no zombie left under tether as PID 1", func() bool { return zombieChildren(init) == 0 })
	_ = syscall.Kill(init, syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("tether as init did not end after TERM")
	}
	if code := cmd.ProcessState.ExitCode(); code != 143 {
		t.Errorf("exit %d, want 143 (the command died of the forwarded TERM)", code)
	}
}

// waitGone waits for p, which the test expects to end, to be reaped,
// failing the test after a generous deadline.
func waitGone(t *testing.T, p *proctest.Proc, what string) {
	t.Helper()
	select {
	case <-p.Done():
	case <-time.After(10 * time.Second):
		t.Fatalf("%s (PID %d): still running after 10s, want it gone", what, p.PID())
	}
}

// wantRunning fails the test if p, which nothing should have signalled,
// has exited. A process that was signalled may not be reaped yet, so
// /proc is asked too.
func wantRunning(t *testing.T, p *proctest.Proc, what string) {
	t.Helper()
	select {
	case <-p.Done():
		t.Fatalf("%s (PID %d) exited, want it running: it was signalled", what, p.PID())
	default:
	}
	if deadOrZombie(p.PID()) {
		t.Fatalf("%s (PID %d) is gone or a zombie, want it running: it was signalled", what, p.PID())
	}
}
