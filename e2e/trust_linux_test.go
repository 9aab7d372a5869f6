//go:build linux

package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/tetherproc/tether/internal/cgroup"
	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/proctest"
	"github.com/tetherproc/tether/internal/ptree"
	"github.com/tetherproc/tether/procid"
)

// Trust across users: what another user writes (markers, records, a
// process that reads as mid-execve for good, a hostile name) never makes
// root's tether end what root did not select, read as another's run, or
// wait on it. Each attack is made as another user; the tests need root.

// alice is the attacker; nobody (65534) is another user with runs of
// its own.
var alice = &syscall.Credential{Uid: 65533, Gid: 65533}

// modeEnvironmentGone empties its own command line and environment for
// good, as any process may (prctl PR_SET_MM_MAP needs no privilege when
// the executable is left as it is): both then read as an execve in
// progress would. It prints its PID, then waits for its standard input
// to close.
var modeEnvironmentGone = proctest.Register("environment-gone", func() {
	data, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	f := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+2:]))
	field := func(n int) uint64 { v, _ := strconv.ParseUint(f[n-3], 10, 64); return v }
	brk, _, _ := syscall.Syscall(syscall.SYS_BRK, 0, 0, 0)
	// struct prctl_mm_map, with the arguments and the environment made
	// empty: end = start.
	m := struct {
		startCode, endCode, startData, endData, startBrk, brk, startStack uint64
		argStart, argEnd, envStart, envEnd                                uint64
		auxv                                                              uint64
		auxvSize, exeFD                                                   uint32
	}{field(26), field(27), field(45), field(46), field(47), uint64(brk), field(28),
		field(48), field(48), field(50), field(50), 0, 0, ^uint32(0)}
	if err := unix.Prctl(unix.PR_SET_MM, unix.PR_SET_MM_MAP, uintptr(unsafe.Pointer(&m)), unsafe.Sizeof(m), 0); err != nil {
		fmt.Fprintln(os.Stderr, "prctl PR_SET_MM_MAP:", err)
		os.Exit(2)
	}
	fmt.Println(os.Getpid())
	_, _ = io.Copy(io.Discard, os.Stdin)
})

func needRoot(t *testing.T, why string) {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("needs root: " + why)
	}
}

// victim is a tether run of a user's, with its command.
type victim struct {
	tether  procid.ID
	command int
	runID   string
	stdin   io.WriteCloser
}

// startVictim starts tether run --name name as cred (root for nil), its
// command the test binary waiting on its standard input, and returns it
// once its record is written: the run as an attacker would find it.
func startVictim(t *testing.T, cred *syscall.Credential, env []string, bin, name string, args ...string) *victim {
	t.Helper()
	cmd := exec.Command(tetherBin, append(append([]string{"run", "--name", name}, args...), "--", bin)...)
	cmd.Env = append(append(append(proctest.CleanEnv(), proctest.Env(t)...), env...), proctest.Mode(proctest.Wait))
	cmd.Stderr = os.Stderr
	if cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		stdin.Close()
		select {
		case <-exited:
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	fs := proc.Host()
	st, err := fs.Stat(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	v := &victim{tether: procid.ID{PID: st.PID, StartTime: st.StartTime}, stdin: stdin}
	proctest.Eventually(t, name+"'s command and record", func() bool {
		for _, c := range ptree.Children(fs, v.tether.PID) {
			env, err := fs.Environ(c)
			if err != nil || !slices.Contains(env, "TETHER_NAME="+name) {
				continue
			}
			for _, kv := range env {
				if id, ok := strings.CutPrefix(kv, "TETHER_RUN_ID="); ok {
					v.command, v.runID = c, id
				}
			}
		}
		if v.runID == "" {
			return false
		}
		dir := "/run/tether"
		if cred != nil {
			dir = filepath.Join(envValue(env, "TMPDIR"), fmt.Sprintf("tether-%d", cred.Uid))
		}
		_, err := os.Stat(filepath.Join(dir, v.runID+".json"))
		return err == nil
	})
	return v
}

func envValue(env []string, key string) string {
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, key+"="); ok {
			return v
		}
	}
	return ""
}

// supervisor is the run's TETHER_SUPERVISOR value, as its members carry
// it and anyone can read it from /proc/PID/stat.
func (v *victim) supervisor() string {
	return fmt.Sprintf("%d:%d", v.tether.PID, v.tether.StartTime)
}

// wantAlive fails the test unless the run's tether and command still run.
func (v *victim) wantAlive(t *testing.T, after string) {
	t.Helper()
	fs := proc.Host()
	if !ptree.Alive(fs, v.tether) {
		t.Errorf("after %s: the victim's tether %d is gone", after, v.tether.PID)
	}
	if st, err := fs.Stat(v.command); err != nil || st.Zombie() {
		t.Errorf("after %s: the victim's command %d is gone", after, v.command)
	}
}

// forge starts, as alice, a listener whose markers copy a run's: the
// given supervisor and run id, under the name alicedev. It returns the
// helper and its port.
func forge(t *testing.T, bin, name, supervisor, runID string) (*proctest.Proc, string) {
	t.Helper()
	return proctest.StartLine(t, proctest.HTTP, proctest.Spec{
		Path:        bin,
		Env:         []string{"TETHER=1", "TETHER_NAME=" + name, "TETHER_SUPERVISOR=" + supervisor, "TETHER_RUN_ID=" + runID},
		SysProcAttr: &syscall.SysProcAttr{Credential: alice},
	})
}

// Markers are anyone's to copy: alice's process naming root's (or
// another user's) supervisor and run id is ended itself by root's
// reclaim --any-user --all, selected by name or by port, never through
// that supervisor; and a stranded copy of a run id never widens the
// reclaim to the run it names. run --port --replace refuses the holder.
func TestForgedMarkersEndNoOtherRun(t *testing.T) {
	needRoot(t, "processes of three users")
	tmp := sharedTemp(t)
	env := []string{"TMPDIR=" + tmp, "XDG_RUNTIME_DIR="}
	bin := proctest.Copy(t, "e2e.test")
	for _, owner := range []struct {
		name string
		cred *syscall.Credential
	}{{"root's run", nil}, {"another user's run", nobody}} {
		t.Run(owner.name, func(t *testing.T) {
			v := startVictim(t, owner.cred, env, bin, "victimsvc")
			for _, c := range []struct {
				name       string
				supervisor string
				args       func(port string) []string
			}{
				{"by name, through its supervisor", v.supervisor(), func(string) []string {
					return []string{"reclaim", "--any-user", "--all", "--grace", "2s", "--name", "alicedev"}
				}},
				{"by port, through its supervisor", v.supervisor(), func(port string) []string {
					return []string{"reclaim", "--any-user", "--all", "--grace", "2s", "--port", port}
				}},
				{"a stranded copy of the run id", "999999:1", func(string) []string {
					return []string{"reclaim", "--any-user", "--all", "--grace", "2s", "--name", "alicedev"}
				}},
			} {
				forger, port := forge(t, bin, "alicedev", c.supervisor, v.runID)
				out, code := tetherAs(t, nil, env, c.args(port)...)
				if code != 0 || strings.Contains(out, "to its supervisor") {
					t.Errorf("%s: %s: exit %d, %q; want 0, the forger signalled itself", c.name, strings.Join(c.args(port), " "), code, out)
				}
				waitGone(t, forger, c.name+": the forger, ended itself")
				v.wantAlive(t, c.name)
			}
			forger, port := forge(t, bin, "alicedev", v.supervisor(), v.runID)
			out, code := tetherAs(t, nil, env, "run", "--port", port, "--replace", "--grace", "2s", "--", "true")
			if code != exitFailed || !strings.Contains(out, "another user's") {
				t.Errorf("run --port %s --replace: exit %d, %q; want 125, the holder another user's", port, code, out)
			}
			select {
			case <-forger.Done():
				t.Error("run --port --replace ended another user's holder")
			default:
			}
			v.wantAlive(t, "run --port --replace")
		})
	}
}

// The same against a Go program's Host: a copy of a child's markers
// (supervisor, run id) makes root's reclaim end the copy, never TERM the
// program. A real child selected with --all is ended with its whole
// run, and the program, which would end every other child with it, is
// not signalled either.
func TestForgedMarkersSpareHost(t *testing.T) {
	needRoot(t, "processes of two users")
	host, _, _, runs, trees := hostTree(t, "2")
	st, err := proc.Host().Stat(host.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	program := procid.ID{PID: st.PID, StartTime: st.StartTime}
	// The records are written at the Host's first tick.
	proctest.Eventually(t, "the children's records", func() bool {
		for _, id := range runs {
			if _, err := os.Stat(filepath.Join("/run/tether", id+".json")); err != nil {
				return false
			}
		}
		return true
	})
	bin := proctest.Copy(t, "e2e.test")
	forger, _ := forge(t, bin, "alicejob", fmt.Sprintf("%d:%d", program.PID, program.StartTime), runs[0])
	if out, code := tetherAs(t, nil, nil, "reclaim", "--any-user", "--all", "--grace", "2s", "--name", "alicejob"); code != 0 || strings.Contains(out, "to its supervisor") {
		t.Errorf("reclaim --any-user --all --name alicejob: exit %d, %q; want 0, the forger signalled itself", code, out)
	}
	waitGone(t, forger, "a copy of a Host child's markers: the forger, ended itself")
	if !ptree.Alive(proc.Host(), program) {
		t.Fatal("the host program is gone: a forged copy of its child's markers had it signalled")
	}
	if left := aliveOf(trees[runs[0]]); len(left) != len(trees[runs[0]]) {
		t.Errorf("child %s's tree: %v of %v left, want all: nothing of it was selected", runs[0], left, trees[runs[0]])
	}

	out, code := tetherAs(t, nil, nil, "reclaim", "--all", "--grace", "2s", "--run-id", runs[0])
	if code != 0 || strings.Contains(out, "to its supervisor") {
		t.Errorf("reclaim --all --run-id %s: exit %d, %q; want 0, each member signalled itself", runs[0], code, out)
	}
	proctest.Eventually(t, "child "+runs[0]+"'s whole tree ended", func() bool { return len(aliveOf(trees[runs[0]])) == 0 })
	if !ptree.Alive(proc.Host(), program) {
		t.Error("the host program is gone: reclaim --all of one child signalled the program")
	}
	if left := aliveOf(trees[runs[1]]); len(left) != len(trees[runs[1]]) {
		t.Errorf("child %s's tree: %v of %v left, want all: another child's reclaim ended it", runs[1], left, trees[runs[1]])
	}
}

// A run id is its owner's secret: on no command line of the run's
// processes (tether, its watchdog, the command), not in the name of a
// contained run's cgroup (every /proc/PID/cgroup is anyone's to read),
// and its cgroup's stamp is unreadable to another user; another user's
// check of a member shows none.
func TestRunIDNotShown(t *testing.T) {
	needRoot(t, "reading as another user")
	proctest.MaySkip(modeReadStamp) // where no run can be contained
	bin := proctest.Copy(t, "e2e.test")
	modes := [][]string{nil}
	if why := containUnavailable(t, escapeCase{mode: "cgroup"}); portable {
		t.Log("no contained run on the portable path")
	} else if why == "" {
		modes = append(modes, []string{"--contain=cgroup"})
	} else {
		t.Logf("no contained run: %s", why)
	}
	for _, args := range modes {
		v := startVictim(t, nil, nil, bin, "secret", args...)
		if shown := withToken(v.runID); len(shown) > 0 {
			t.Errorf("run %v: run id %s on the command line of %v", args, v.runID, shown)
		}
		for _, pid := range append([]int{v.tether.PID, v.command}, ptree.Children(proc.Host(), v.tether.PID)...) {
			if data, err := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", pid)); err == nil && strings.Contains(string(data), v.runID) {
				t.Errorf("run %v: run id %s in /proc/%d/cgroup: %s", args, v.runID, pid, data)
			}
		}
		out, _ := tetherAs(t, nobody, nil, "check", "--json", strconv.Itoa(v.command))
		if strings.Contains(out, v.runID) {
			t.Errorf("run %v: check as another user shows the run id: %s", args, out)
		}
		if len(args) == 0 {
			continue
		}
		path, err := proc.Host().Cgroup(v.command)
		if err != nil {
			t.Fatal(err)
		}
		h, err := cgroup.Find(proc.Host())
		if err != nil {
			t.Fatal(err)
		}
		dir := h.Dir(path)
		if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o711 {
			t.Errorf("the run's cgroup %s: %v, %v; want 0711", dir, fi.Mode(), err)
		}
		if stamp, err := cgroup.Stamp(dir); err != nil || !slices.Contains(stamp, "TETHER_RUN_ID="+v.runID) {
			t.Errorf("the run's cgroup stamp, read by its owner: %q, %v; want the run id", stamp, err)
		}
		cmd := exec.Command(bin)
		cmd.Env = append(proctest.CleanEnv(), proctest.Mode(modeReadStamp), "PROCTEST_DIR="+dir)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: nobody}
		got, _ := cmd.CombinedOutput()
		if cmd.ProcessState.ExitCode() != 3 {
			t.Errorf("the run's cgroup stamp, read as another user: exit %d, %q; want refused", cmd.ProcessState.ExitCode(), got)
		}
	}
}

// modeReadStamp reads the stamp of the cgroup PROCTEST_DIR: exit 0 and
// the stamp, or exit 3 and the error.
var modeReadStamp = proctest.Register("read-stamp", func() {
	stamp, err := cgroup.Stamp(os.Getenv("PROCTEST_DIR"))
	if err != nil {
		fmt.Println(err)
		os.Exit(3)
	}
	fmt.Printf("%q\n", stamp)
})

// Processes of another user that read as mid-execve for good make
// root's commands wait no longer than without them: the wait is for the
// caller's own processes, and only while they are young. Some of them
// share a listening socket, so that a port's holders are such processes.
func TestEnvironmentGoneNoWait(t *testing.T) {
	t.Parallel() // it waits out a grace or a window, and signals only its own
	needRoot(t, "processes of another user")
	bin := proctest.Copy(t, "e2e.test")
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	sock, err := ln.(*net.TCPListener).File()
	if err != nil {
		t.Fatal(err)
	}
	start := func(n int, cred *syscall.Credential, files ...*os.File) {
		for i := 0; i < n; i++ {
			spec := proctest.Spec{Path: bin, ExtraFiles: files}
			if cred != nil {
				spec.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
			}
			p, line := proctest.StartLine(t, modeEnvironmentGone, spec)
			if line != strconv.Itoa(p.PID()) {
				t.Fatalf("helper: %q", line)
			}
		}
	}
	// Root's own, old by the time they are looked at.
	start(5, nil)
	ownStarted := time.Now()
	start(20, alice)
	start(20, alice, sock) // the port's only holders
	sock.Close()
	ln.Close()
	time.Sleep(time.Until(ownStarted.Add(proc.ExecWindow + 500*time.Millisecond)))
	for _, args := range [][]string{
		{"reclaim", "--any-user", "--dry-run"},
		{"reclaim", "--any-user", "--dry-run", "--name", "web"},
		{"ps", "--any-user"},
		{"ps", "--port", port},
		{"wait", "--port", port, "--timeout", "10s"},
		{"run", "--port", port, "--", "true"},
	} {
		began := time.Now()
		out, code := tetherAs(t, nil, nil, args...)
		took := time.Since(began)
		// 25 or 40 processes waited on at half a second each would
		// take 12 to 20 s.
		if took > 5*time.Second {
			t.Errorf("%s: %v (exit %d, %q); want no wait on each process whose environment is gone", strings.Join(args, " "), took, code, out)
		}
		t.Logf("%s: %v, exit %d", strings.Join(args, " "), took, code)
	}
}

// Hostile records in another user's own directory (many, each near the
// size limit, naming thousands of members) cost root's reclaim
// --any-user a bounded read: the rest is skipped, with one traced line.
func TestHostileRecordsBounded(t *testing.T) {
	needRoot(t, "records of another user")
	tmp := sharedTemp(t)
	env := []string{"TMPDIR=" + tmp, "XDG_RUNTIME_DIR="}
	dir := filepath.Join(tmp, fmt.Sprintf("tether-%d", nobody.Uid))
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	members := make([]string, 40000)
	for i := range members {
		members[i] = fmt.Sprintf("%d:%d", 1000000+i, 12345678)
	}
	for i := 0; i < 50; i++ {
		runID := fmt.Sprintf("%032x", 0xabc000+i)
		data, _ := json.Marshal(map[string]any{
			"run_id": runID, "name": "web", "supervisor": "999999:1", "command": []string{"x"},
			"stamp":   []string{"TETHER=1", "TETHER_NAME=web", "TETHER_RUN_ID=" + runID},
			"members": members,
		})
		path := filepath.Join(dir, runID+".json")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(path, int(nobody.Uid), int(nobody.Gid)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chown(dir, int(nobody.Uid), int(nobody.Gid)); err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	out, code := tetherAs(t, nil, append(env, "TETHER_DEBUG=1"), "reclaim", "--any-user", "--dry-run")
	took := time.Since(began)
	if code != 0 || took > 5*time.Second {
		t.Errorf("reclaim --any-user --dry-run beside 50 hostile records: %v, exit %d; want a bounded read", took, code)
	}
	if n := strings.Count(out, "the rest skipped"); n != 1 {
		t.Errorf("reclaim --debug: %d lines on skipped records, want 1: %s", n, out)
	}
	t.Logf("reclaim --any-user --dry-run beside 50 records of 0.7 MB: %v", took)
}

// A name and a run id holding terminal controls (ESC, a C1 CSI, invalid
// UTF-8) are printed escaped by every command's text output, and as JSON
// escapes them in JSON.
func TestHostileNamesEscaped(t *testing.T) {
	needRoot(t, "a process of another user")
	bin := proctest.Copy(t, "e2e.test")
	hostile := "\x1b[2J\x1b]0;owned\x1b\\\u009b31m\xff"
	p := proctest.Start(t, proctest.Wait, proctest.Spec{
		Path:        bin,
		Env:         []string{"TETHER=1", "TETHER_NAME=" + hostile, "TETHER_SUPERVISOR=999999:1", "TETHER_RUN_ID=" + hostile},
		SysProcAttr: &syscall.SysProcAttr{Credential: alice},
	})
	pid := strconv.Itoa(p.PID())
	for _, args := range [][]string{
		{"check", pid},
		{"ps", "--any-user"},
		{"reclaim", "--any-user", "--dry-run"},
		{"--debug", "check", pid},
	} {
		out, _ := tetherAs(t, nil, nil, args...)
		if strings.ContainsAny(out, "\x1b\u009b") || strings.Contains(out, "\xff") {
			t.Errorf("%s: %q holds terminal controls", strings.Join(args, " "), out)
		}
		if !strings.Contains(out, `\x1b[2J`) {
			t.Errorf("%s: %q; want the name shown escaped", strings.Join(args, " "), out)
		}
	}
	out, _ := tetherAs(t, nil, nil, "check", "--json", pid)
	var r struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil || strings.ContainsAny(out, "\x1b\u009b") {
		t.Errorf("check --json: %v, %q; want JSON with its controls escaped", err, out)
	} else if !strings.HasPrefix(r.Name, "\x1b[2J") {
		t.Errorf("check --json: name %q, want the name as it is, JSON-escaped", r.Name)
	}
}

// Another user's stream of processes that read as mid-execve (each
// young, as a fork that emptied its environment at once is) holds up no
// round of root's watchdog: after tether's SIGKILL the watchdog ends the
// run and exits, though its grace is long and the stream goes on.
func TestEnvironmentGoneStreamNoHold(t *testing.T) {
	needRoot(t, "processes of another user")
	bin := proctest.Copy(t, "e2e.test")
	v := startVictim(t, nil, nil, bin, "victimsvc", "--grace", "60s")
	var watchdog procid.ID
	for _, c := range ptree.Children(proc.Host(), v.tether.PID) {
		if args, _ := proc.Host().Cmdline(c); len(args) > 0 && args[0] == "tether-watchdog" {
			st, _ := proc.Host().Stat(c)
			watchdog = procid.ID{PID: c, StartTime: st.StartTime}
		}
	}
	if watchdog.PID == 0 {
		t.Fatal("the run has no watchdog")
	}
	spec := proctest.Spec{Path: bin, SysProcAttr: &syscall.SysProcAttr{Credential: alice}}
	proctest.StartLine(t, modeEnvironmentGone, spec)
	if err := syscall.Kill(v.tether.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for ptree.Alive(proc.Host(), watchdog) && time.Now().Before(deadline) {
		proctest.StartLine(t, modeEnvironmentGone, spec) // one young one at a time
		time.Sleep(200 * time.Millisecond)
	}
	if ptree.Alive(proc.Host(), watchdog) {
		t.Fatal("root's watchdog still runs 20 s after tether's SIGKILL, held up by another user's mid-execve processes")
	}
	if st, err := proc.Host().Stat(v.command); err == nil && !st.Zombie() {
		t.Errorf("the run's command %d outlived its watchdog", v.command)
	}
}
