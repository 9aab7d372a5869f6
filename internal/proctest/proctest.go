//go:build linux

package proctest

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/procid"
)

const (
	// ModeVar selects the helper mode of a re-executed test binary.
	ModeVar = "PROCTEST_MODE"
	// IDVar carries the id of the test that started a helper.
	IDVar = "PROCTEST_ID"
)

// The built-in modes a helper can run in. A test file adds its own with
// Register.
const (
	// Wait blocks until its standard input closes, then exits 0: a helper
	// cannot outlive the pipe its test holds, even if the test is killed.
	Wait = "wait"
	// Exit exits at once with the status in PROCTEST_STATUS (default 0).
	Exit = "exit"
	// Orphan starts a Wait grandchild that shares its standard input,
	// prints the grandchild's PID and exits, so that the grandchild is
	// reparented.
	Orphan = "orphan"
	// Retitle writes the title in PROCTEST_TITLE over its whole argument
	// and environment area, as setproctitle does, prints its PID, then
	// acts as Wait (with PROCTEST_STAY set, blocks until killed): its
	// environment no longer reads back.
	Retitle = "retitle"
	// Refuse installs a seccomp filter that refuses the system calls of
	// PROCTEST_REFUSE as an old kernel or container profile does, then
	// execs the program of PROCTEST_ARGV under it, with its children:
	// start it with Refusing. It exits 125 if it cannot.
	Refuse = "refuse"
)

// Run runs the tests and then fails the run if a goroutine was left
// behind: every test waits for what it started (a helper's waiter, a
// reader), so none may be left; opts name the goroutines that live as
// long as the process by design. Use it as os.Exit(proctest.Run(m)).
//
// When the whole package ran and passed, Run also fails the run if a mode
// registered with Register was started by no test.
//
// The tests that say t.Parallel here mostly wait (a grace, a timeout, a
// helper's start), not compute: Run lets six of them run side by side
// rather than one per core, unless -parallel says otherwise.
func Run(m *testing.M, opts ...goleak.Option) int {
	if !flag.Parsed() {
		flag.Parse()
	}
	parallelSet := false
	flag.Visit(func(f *flag.Flag) { parallelSet = parallelSet || f.Name == "test.parallel" })
	if !parallelSet {
		_ = flag.Set("test.parallel", "6")
	}
	code := m.Run()
	if code == 0 {
		if err := goleak.Find(opts...); err != nil {
			fmt.Fprintf(os.Stderr, "goleak: %v\n", err)
			code = 1
		}
	}
	if code == 0 && wholeRun() {
		for _, name := range unusedModes() {
			fmt.Fprintf(os.Stderr, "proctest: helper mode %q is registered, but no test started it: remove it, or say what starts it (Starts)\n", name)
			code = 1
		}
	}
	return code
}

// Spec says how a helper is started.
type Spec struct {
	// Env is added to the helper's environment (after the test's own,
	// with the marker variables of the test's environment removed).
	Env []string
	// Path runs the test binary from this path (a copy under a hostile
	// name, say) instead of os.Args[0].
	Path string
	// Args are passed to the helper.
	Args []string
	// SysProcAttr is passed to exec.Cmd as is.
	SysProcAttr *syscall.SysProcAttr
	// Stdout receives the helper's standard output; default: discarded.
	Stdout io.Writer
	// Stdin and Stderr replace the helper's own pipe and the test's
	// stderr (a terminal, say). A helper given Stdin must end by itself.
	Stdin  *os.File
	Stderr io.Writer
	// ExtraFiles are the helper's descriptors from 3 on (a socket to
	// hold, say).
	ExtraFiles []*os.File
}

// Proc is a running helper.
type Proc struct {
	Cmd   *exec.Cmd
	stdin io.WriteCloser
	done  chan struct{}
	reap  chan struct{} // closed to let an unreaped helper be waited for
	err   error
}

// PID is the helper's process id.
func (p *Proc) PID() int { return p.Cmd.Process.Pid }

// Stop closes the helper's standard input, which ends a Wait helper, and
// waits for it to be reaped; it kills the helper (which the test started)
// if it has not exited after a generous deadline.
func (p *Proc) Stop() error {
	p.stdin.Close()
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		_ = p.Cmd.Process.Kill()
		<-p.done
	}
	return p.err
}

// Done is closed when the helper has been reaped.
func (p *Proc) Done() <-chan struct{} { return p.done }

// StartLine is Start for a helper that says something first (its port,
// "connected", "ready"): it returns the helper and that first line of its
// standard output, read within ReadLine's deadline.
func StartLine(t testing.TB, mode string, opts Spec) (*Proc, string) {
	t.Helper()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	opts.Stdout = pw
	p := Start(t, mode, opts)
	return p, ReadLine(t, pr)
}

// Start starts the test binary in the given helper mode. The helper is
// stopped and reaped when the test ends.
func Start(t testing.TB, mode string, opts Spec) *Proc {
	t.Helper()
	return start(t, mode, opts, true)
}

// StartUnreaped is Start without the wait: the helper stays a zombie after
// it exits, until the test calls Reap. Cleanup still reaps it.
func StartUnreaped(t testing.TB, mode string, opts Spec) *Proc {
	t.Helper()
	return start(t, mode, opts, false)
}

func start(t testing.TB, mode string, opts Spec, reap bool) *Proc {
	t.Helper()
	path := opts.Path
	if path == "" {
		path = os.Args[0]
	}
	cmd := exec.Command(path, opts.Args...)
	cmd.Env = append(CleanEnv(), Mode(mode), IDVar+"="+TestID(t))
	// A race-enabled helper would otherwise sleep a second at exit.
	cmd.Env = append(cmd.Env, "GORACE=atexit_sleep_ms=0 "+os.Getenv("GORACE"))
	cmd.Env = append(cmd.Env, opts.Env...)
	cmd.Stdout = opts.Stdout
	cmd.Stderr = opts.Stderr
	if cmd.Stderr == nil {
		cmd.Stderr = os.Stderr
	}
	cmd.SysProcAttr = opts.SysProcAttr
	cmd.ExtraFiles = opts.ExtraFiles
	// Not cmd.StdinPipe: Wait would close it as soon as the helper
	// exits, ending the helper's own children (Orphan) with it.
	stdinR, stdin, err := os.Pipe()
	if err != nil {
		t.Fatalf("stdin pipe for helper %q: %v", mode, err)
	}
	cmd.Stdin = stdinR
	if opts.Stdin != nil {
		cmd.Stdin = opts.Stdin
	}
	err = cmd.Start()
	stdinR.Close()
	if err != nil {
		stdin.Close()
		t.Fatalf("start helper %q from %s: %v", mode, path, err)
	}
	p := &Proc{Cmd: cmd, stdin: stdin, done: make(chan struct{})}
	waitNow := make(chan struct{})
	go func() {
		if !reap {
			<-waitNow
		}
		p.err = cmd.Wait()
		close(p.done)
	}()
	if reap {
		close(waitNow)
	} else {
		p.reap = waitNow
	}
	t.Cleanup(func() {
		p.Reap()
		_ = p.Stop()
	})
	return p
}

// Reap lets a helper started with StartUnreaped be waited for.
func (p *Proc) Reap() {
	if p.reap != nil {
		select {
		case <-p.reap:
		default:
			close(p.reap)
		}
	}
}

// Env is the environment entries that mark a process as t's, for a
// process the test starts by other means (tether itself): its whole tree
// is then covered by the leak check.
func Env(t testing.TB) []string {
	t.Helper()
	return []string{IDVar + "=" + TestID(t)}
}

// CleanEnv is the test's environment without tether's marker variables
// or another test's id, so that a helper is tethered only when a test
// says so.
func CleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "TETHER") || strings.HasPrefix(kv, "PROCTEST_") {
			continue
		}
		env = append(env, kv)
	}
	return env
}

var runToken = func() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}()

// TestID is the id that marks the processes of t, unique across test
// binaries running at the same time.
func TestID(t testing.TB) string {
	t.Helper()
	id := runToken + "-" + strings.ReplaceAll(t.Name(), "/", ".")
	if !registered(t, id) {
		t.Cleanup(func() { checkLeaks(t, id) })
	}
	return id
}

// Copy copies the test binary to a new file named name in a directory
// that every user can read, and returns its path.
func Copy(t testing.TB, name string) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "proctest-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	src, err := os.Open(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	path := filepath.Join(dir, name)
	// Written and closed under ForkLock: a child forked meanwhile by a
	// test side by side would hold the write descriptor until its exec,
	// and the copy's own exec would fail with "text file busy".
	syscall.ForkLock.Lock()
	defer syscall.ForkLock.Unlock()
	dst, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// ReadLine reads one line of a helper's output, failing the test after a
// generous deadline.
func ReadLine(t testing.TB, r io.Reader) string {
	t.Helper()
	ch := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(r).ReadString('\n')
		ch <- strings.TrimSpace(line)
	}()
	select {
	case line := <-ch:
		return line
	case <-time.After(10 * time.Second):
		t.Fatal("no line from helper within 10s")
		return ""
	}
}

// Eventually polls cond until it is true, failing the test after a
// generous deadline: outcomes are asserted, not timings.
func Eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 10s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// SupervisorOf names the live process pid as TETHER_SUPERVISOR would,
// for a test that stamps a helper by hand.
func SupervisorOf(pid int) (procid.ID, error) {
	st, err := proc.Host().Stat(pid)
	if err != nil {
		return procid.ID{}, err
	}
	return procid.ID{PID: pid, StartTime: st.StartTime}, nil
}
