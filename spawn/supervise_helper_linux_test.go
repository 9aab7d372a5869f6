package spawn_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tetherproc/tether/internal/exitcode"
	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/proctest"
	"github.com/tetherproc/tether/internal/ptree"
	"github.com/tetherproc/tether/spawn"
)

// The tests of Supervise's parts (supervise_*_linux_test.go) run it where
// a program that imports spawn runs it: in a process of its own, the test
// binary started again as a helper, which prints what it saw on its
// standard output beside what its command prints there. Supervise changes
// its process's signal handling and child-subreaper flag while it runs,
// and takes the process's children as its own when it is the sole
// reaper: in the test process itself it would do so under the other
// tests' feet.

// supervisors are the two ways a program runs Supervise: as a library
// caller with children of its own (no SoleReaper: it reaps by PID and
// gives the program its signal state back), and as tether run does
// (SoleReaper, with a watchdog: it reaps every child with wait4(-1)).
var supervisors = []struct {
	name string
	env  []string
}{
	{"library", nil},
	{"sole reaper", []string{"PROCTEST_SOLE=1"}},
}

// inherit gives cmd the helper's own standard files, which os/exec's
// nil would make the null device.
func inherit(cmd *exec.Cmd) *exec.Cmd {
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	return cmd
}

// modeSupervise runs spawn.Supervise on the command in PROCTEST_ARGS (a
// JSON array): as a library caller, or with PROCTEST_SOLE set as tether
// run does (SoleReaper); with PROCTEST_GRACE as Options.Grace,
// PROCTEST_FORKING set, Forking, and PROCTEST_CONTAIN as Contain; with
// PROCTEST_TIMEOUT, its context ends after that long, and it prints
// "cancelled STATUS WRAPS" first (WRAPS: whether the error wraps
// context.DeadlineExceeded). The signals numbered in PROCTEST_IGNORE are
// set to SIG_IGN first, as nohup leaves them. Once
// Supervise returns it reports (report), then waits for its standard
// input to close, so that the test can read /proc while it is alive and
// its zombies, if any, are still its own.
var modeSupervise = proctest.Register("supervise", func() {
	var cfg spawn.Options
	var args []string
	if err := json.Unmarshal([]byte(os.Getenv("PROCTEST_ARGS")), &args); err != nil {
		fmt.Println("error -1 PROCTEST_ARGS:", err)
		os.Exit(2)
	}
	if os.Getenv("PROCTEST_SOLE") != "" {
		cfg.SoleReaper = true
	}
	if g := os.Getenv("PROCTEST_GRACE"); g != "" {
		var err error
		if cfg.Grace, err = time.ParseDuration(g); err != nil {
			fmt.Println("error -1 PROCTEST_GRACE:", err)
			os.Exit(2)
		}
	}
	cfg.Forking = os.Getenv("PROCTEST_FORKING") != ""
	cfg.Contain = spawn.Containment(os.Getenv("PROCTEST_CONTAIN"))
	for _, f := range strings.Fields(os.Getenv("PROCTEST_IGNORE")) {
		n, _ := strconv.Atoi(f)
		signal.Ignore(syscall.Signal(n))
	}
	if os.Getenv("PROCTEST_NOTIFY") != "" {
		// A program that catches a signal of its own already: Go's
		// runtime then has a thread that blocks every signal it does
		// not deliver, which may be the process's first.
		signal.Notify(make(chan os.Signal, 1), syscall.SIGPWR)
	}
	ctx := context.Background()
	if d, err := time.ParseDuration(os.Getenv("PROCTEST_TIMEOUT")); err == nil {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d)
		defer cancel()
		status, err := spawn.Supervise(ctx, inherit(exec.Command(args[0], args[1:]...)), cfg)
		fmt.Println("cancelled", shellStatus(status), errors.Is(err, context.DeadlineExceeded))
		report(status, nil)
	} else {
		report(spawn.Supervise(ctx, inherit(exec.Command(args[0], args[1:]...)), cfg))
	}
	_, _ = io.Copy(io.Discard, os.Stdin)
})

// shellStatus is the status a shell gives a command that ended as e.
func shellStatus(e spawn.Exit) int { return exitcode.Of(e.Code, e.Signal) }

// report prints what Supervise returned, "status N" or "error N TEXT"
// (N the status a shell gives the command's end or the StartError, as
// tether run computes it), then "zombies PID..." with the calling
// process's children that are zombies: a status Supervise left unreaped.
func report(ended spawn.Exit, err error) {
	var se *spawn.StartError
	switch {
	case errors.As(err, &se):
		code := 125
		if se.Exec {
			code = exitcode.Exec(se.Err)
		}
		fmt.Println("error", code, se.Err)
	case err != nil:
		fmt.Println("error -1", err)
	default:
		fmt.Println("status", shellStatus(ended))
	}
	if os.Getenv("PROCTEST_SOLE") != "" {
		reapWatchdog()
	}
	line := []string{"zombies"}
	for _, pid := range ptree.Children(proc.Host(), os.Getpid()) {
		if st, err := proc.Host().Stat(pid); err == nil && st.Zombie() {
			line = append(line, strconv.Itoa(pid))
		}
	}
	fmt.Println(strings.Join(line, " "))
}

// reapWatchdog collects the watchdog a sole reaper kills and leaves to
// the process's own reaper as it returns (the process is to exit), as
// that reaper would, and says "error" unless it died of the KILL or
// exited 0 (it read the "done" written before the KILL first).
func reapWatchdog() {
	for _, pid := range ptree.Children(proc.Host(), os.Getpid()) {
		if st, err := proc.Host().Stat(pid); err != nil || st.Comm != "tether-watchdog" {
			continue
		}
		var ws syscall.WaitStatus
		if _, err := syscall.Wait4(pid, &ws, 0, nil); err != nil {
			fmt.Println("error -1 wait for watchdog", pid, err)
		} else if !(ws.Signaled() && ws.Signal() == syscall.SIGKILL) && !(ws.Exited() && ws.ExitStatus() == 0) {
			fmt.Println("error -1 watchdog", pid, "ended otherwise than by KILL or its exit 0:", ws)
		}
	}
}

// commandEnv is the environment entry that has modeSupervise run args.
func commandEnv(args ...string) string {
	data, err := json.Marshal(args)
	if err != nil {
		panic(err)
	}
	return "PROCTEST_ARGS=" + string(data)
}

// helperCommand is the command line that runs the test binary as helper
// mode under Supervise: env sets the mode over the supervising helper's.
func helperCommand(mode string) []string {
	return []string{"/usr/bin/env", proctest.Mode(mode), os.Args[0]}
}

// supervision is a helper that runs Supervise, as the test sees it: its
// output, line by line, its own and its command's.
type supervision struct {
	p     *proctest.Proc
	lines chan string
}

// startSupervision starts the test binary in helper mode (with the
// test's id, which every process of the run inherits, for the leak
// check), its standard output a pipe read line by line. It is stopped,
// and its output closed, when the test ends.
func startSupervision(t *testing.T, mode string, spec proctest.Spec) *supervision {
	t.Helper()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	// Before the helper is started, so that this cleanup runs after
	// its own: the helper is gone by the time its output is closed.
	s := readLines(t, pr)
	spec.Stdout = pw
	s.p = proctest.Start(t, mode, spec)
	pw.Close()
	return s
}

// readLines reads r line by line into a supervision, until r ends or
// the test does; then r is closed.
func readLines(t *testing.T, r io.ReadCloser) *supervision {
	s := &supervision{lines: make(chan string, 64)}
	quit, read := make(chan struct{}), make(chan struct{})
	t.Cleanup(func() {
		close(quit)
		r.Close()
		<-read
	})
	go func() {
		defer close(read)
		br := bufio.NewReader(r)
		for {
			line, err := br.ReadString('\n')
			if line != "" {
				select {
				case s.lines <- strings.TrimSpace(line):
				case <-quit:
					return
				}
			}
			if err != nil {
				close(s.lines)
				return
			}
		}
	}()
	return s
}

// supervise starts modeSupervise on args, with env.
func supervise(t *testing.T, args []string, env ...string) *supervision {
	t.Helper()
	return startSupervision(t, modeSupervise, proctest.Spec{Env: append(slices.Clip(env), commandEnv(args...))})
}

// next is the helper's next line, within a generous deadline.
func (s *supervision) next(t *testing.T) string {
	t.Helper()
	select {
	case line, ok := <-s.lines:
		if !ok {
			t.Fatal("the helper's output closed; want another line")
		}
		return line
	case <-time.After(20 * time.Second):
		t.Fatal("no line from the helper within 20s")
	}
	return ""
}

// upTo reads the helper's lines up to the first that begins with prefix,
// and returns the lines before it and that line.
func (s *supervision) upTo(t *testing.T, prefix string) (before []string, line string) {
	t.Helper()
	for {
		line := s.next(t)
		if strings.HasPrefix(line, prefix) {
			return before, line
		}
		before = append(before, line)
	}
}

// result reads the helper's report (report): the status Supervise
// returned and the zombies it left; it fails the test on an error. The
// lines before it are returned too.
func (s *supervision) result(t *testing.T) (status int, zombies []int, before []string) {
	t.Helper()
	for {
		line := s.next(t)
		if strings.HasPrefix(line, "error ") {
			t.Fatalf("Supervise: %s (after %q)", line, before)
		}
		if n, ok := strings.CutPrefix(line, "status "); ok {
			status, err := strconv.Atoi(n)
			if err != nil {
				t.Fatalf("helper said %q, want status N", line)
			}
			between, z := s.upTo(t, "zombies")
			for _, l := range between {
				if strings.HasPrefix(l, "error ") {
					t.Errorf("after Supervise returned: %s", l)
				}
			}
			return status, pidsIn(z), before
		}
		before = append(before, line)
	}
}

// signal sends sig to the helper, which the test started.
func (s *supervision) signal(t *testing.T, sig syscall.Signal) {
	t.Helper()
	if err := s.p.Cmd.Process.Signal(sig); err != nil {
		t.Fatalf("signal %v to helper %d: %v", sig, s.p.PID(), err)
	}
}

// pidsIn is every number among the words of line.
func pidsIn(line string) []int {
	var out []int
	for _, f := range strings.Fields(line) {
		if n, err := strconv.Atoi(f); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// needFull skips a test of what only Linux's full supervision path does
// (the child subreaper, the parent-death signal) under the
// tetherportable build tag.
func needFull(t *testing.T, why string) {
	t.Helper()
	if portable {
		t.Skip("not on the portable path (tetherportable): " + why)
	}
}

// childOf reports whether pid is a child of parent, alive or a zombie:
// a PID recycled since is another process's, and not parent's child.
func childOf(pid, parent int) (proc.Stat, bool) {
	st, err := proc.Host().Stat(pid)
	return st, err == nil && st.PPID == parent
}
