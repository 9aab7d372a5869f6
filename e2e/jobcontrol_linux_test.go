package e2e

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/proctest"
	"github.com/tetherproc/tether/internal/ptree"
)

// interactive is a real interactive bash on a pseudo-terminal, driven as
// a person at the keyboard would drive it.
type interactive struct {
	t      *testing.T
	master *os.File
	mu     sync.Mutex
	out    bytes.Buffer
	done   chan struct{}
}

func startBash(t *testing.T) *interactive {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	master, slave := proctest.OpenPTY(t)
	dir := t.TempDir()
	// tether on the PATH, as a user has it.
	if err := os.Symlink(tetherBin, filepath.Join(dir, "tether")); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bash, "--norc", "--noprofile", "-i")
	cmd.Env = append(append(proctest.CleanEnv(), proctest.Env(t)...), "PATH="+dir+":"+os.Getenv("PATH"), "PS1=$ ", "TERM=dumb")
	cmd.Dir = dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	b := &interactive{t: t, master: master, done: make(chan struct{})}
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			b.mu.Lock()
			b.out.Write(buf[:n])
			b.mu.Unlock()
			if err != nil {
				close(b.done)
				return
			}
		}
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		master.Close()
		<-b.done
	})
	return b
}

// typeLine types s and Enter.
func (b *interactive) typeLine(s string) { b.keys(s + "\r") }

func (b *interactive) keys(s string) {
	if _, err := b.master.WriteString(s); err != nil {
		b.t.Fatalf("type %q: %v", s, err)
	}
}

// expect waits for want to appear in the terminal's output, and returns
// all of it. The terminal echoes what is typed: a marker must be made by
// the shell (echo R""C=$?), not typed as is.
func (b *interactive) expect(want string) string {
	b.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		b.mu.Lock()
		out := b.out.String()
		b.mu.Unlock()
		if strings.Contains(out, want) {
			return out
		}
		if time.Now().After(deadline) {
			b.t.Fatalf("%q not on the terminal within 10s; it shows %q", want, out)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Ctrl-Z stops tether with its command and gives the prompt back; fg
// continues both with the terminal, and the command finishes.
func TestInteractiveStopAndFg(t *testing.T) {
	b := startBash(t)
	b.typeLine("tether run -- sh -c 'sleep 1; echo finished-$((6*7))'")
	time.Sleep(200 * time.Millisecond) // the command has started; Ctrl-Z now
	b.keys("\x1a")
	b.expect("Stopped")
	b.typeLine("echo prompt-$((1+1))")
	b.expect("prompt-2")
	b.typeLine(`fg; echo R""C=$?`)
	out := b.expect("RC=")
	if !strings.Contains(out, "finished-42") || !strings.Contains(out, "RC=0") {
		t.Errorf("after fg: %q; want the command to finish (finished-42) and rc-0", out)
	}
}

// One Ctrl-C ends a shell loop of tethered commands, as it does without
// tether: tether dies by SIGINT, and bash stops the loop.
func TestInteractiveCtrlCEndsLoop(t *testing.T) {
	b := startBash(t)
	b.typeLine(`for i in 1 2 3; do tether run -- sleep 20; echo step-"$i"; done; echo loop""-over`)
	time.Sleep(300 * time.Millisecond)
	b.keys("\x03")
	b.typeLine("echo after-$((2+3))")
	out := b.expect("after-5")
	if strings.Contains(out, "step-1") || strings.Contains(out, "loop-over") {
		t.Errorf("the loop went on after one Ctrl-C: %q; want it ended", out)
	}
}

// One Ctrl-C ends make -j2 of two tethered targets: tether leaves the
// terminal to make's group, so make gets the interrupt too.
func TestInteractiveCtrlCEndsMake(t *testing.T) {
	makePath, err := exec.LookPath("make")
	if err != nil {
		t.Skip("no make")
	}
	b := startBash(t)
	dir := t.TempDir()
	mk := "all: a b\na:\n\ttether run -- sleep 20\nb:\n\ttether run -- sleep 20\n"
	if err := os.WriteFile(filepath.Join(dir, "Makefile"), []byte(mk), 0o644); err != nil {
		t.Fatal(err)
	}
	b.typeLine(makePath + " -s -C " + dir + ` -j2; echo M""AKE=$?`)
	time.Sleep(500 * time.Millisecond)
	start := time.Now()
	b.keys("\x03")
	b.expect("Interrupt")
	// bash aborts the rest of the line when its job dies by SIGINT, and
	// gives the prompt back.
	b.typeLine("echo after-$((2+3))")
	out := b.expect("after-5")
	if time.Since(start) > 5*time.Second || strings.Contains(out, "MAKE=") {
		t.Errorf("make after one Ctrl-C: %q; want it interrupted at once, and the line aborted", out)
	}
}

// Alone in the foreground, tether gives its command the terminal: the
// command reads what is typed.
func TestInteractiveCommandReadsTerminal(t *testing.T) {
	b := startBash(t)
	b.typeLine(`tether run -- sh -c 'read line; echo got-"$line"'; echo R""C=$?`)
	time.Sleep(300 * time.Millisecond)
	b.typeLine("hello")
	out := b.expect("RC=")
	if !strings.Contains(out, "got-hello") || !strings.Contains(out, "RC=0") {
		t.Errorf("%q; want the command to read hello from the terminal and exit 0", out)
	}
}

// modeCatchall prints "ready", then the name of every signal it gets
// that it can catch; TERM ends it with status 0.
var modeCatchall = proctest.Register("catchall", func() {
	ch := make(chan os.Signal, 64)
	var all []os.Signal
	for s := syscall.Signal(1); s <= 64; s++ {
		switch s {
		case syscall.SIGKILL, syscall.SIGSTOP, syscall.SIGCHLD, syscall.SIGURG, syscall.SIGPROF, 32, 33:
			continue
		}
		all = append(all, s)
	}
	signal.Notify(ch, all...)
	fmt.Println("ready")
	for s := range ch {
		fmt.Println(sigName(s.(syscall.Signal)))
		if s == syscall.SIGTERM {
			os.Exit(0)
		}
	}
})

// Every signal tini forwards reaches the command, but SIGPIPE, which
// tether's own writes raise; so do those tini leaves alone (the
// synchronous ones, sent with kill), and none of them prints a
// traceback.
func TestRunForwardsEverySignal(t *testing.T) {
	cmd := exec.Command(tetherBin, "run", "--", os.Args[0])
	cmd.Env = append(append(proctest.CleanEnv(), proctest.Env(t)...), append(helperEnv(modeCatchall), "TETHER_DEBUG=1")...)
	outR, outW := pipe(t)
	errR, errW := pipe(t)
	cmd.Stdout, cmd.Stderr = outW, errW
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	outW.Close()
	errW.Close()
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-done })
	// The trace says when the rarely sent signals are caught too.
	traced := make(chan string, 64)
	go func() {
		sc := bufio.NewScanner(errR)
		for sc.Scan() {
			traced <- sc.Text()
		}
		close(traced)
	}()
	out := bufio.NewReader(outR)
	line := func() string {
		l, err := readLineTimeout(out)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	if l := line(); l != "ready" {
		t.Fatalf("helper said %q, want ready", l)
	}
	deadline := time.After(10 * time.Second)
	for caught := false; !caught; {
		select {
		case l, ok := <-traced:
			if !ok {
				t.Fatal("tether's stderr closed before it said the rarely sent signals are caught")
			}
			wantNoTraceback(t, "tether", l)
			caught = strings.Contains(l, "rarely sent signals are caught")
		case <-deadline:
			t.Fatal("tether did not say within 10s that the rarely sent signals are caught")
		}
	}
	go func() {
		for range traced { // until tether's stderr closes
		}
	}()
	sigs := []syscall.Signal{syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGUSR1, syscall.SIGUSR2,
		syscall.SIGALRM, syscall.SIGWINCH, syscall.SIGXCPU, syscall.SIGXFSZ, syscall.SIGVTALRM,
		syscall.SIGIO, syscall.SIGPWR, syscall.SIGSTKFLT, syscall.SIGSYS, syscall.SIGTRAP, syscall.SIGILL,
		syscall.SIGABRT, syscall.SIGBUS, syscall.SIGFPE, syscall.SIGSEGV, 35, 40, 64}
	for _, sig := range sigs {
		if err := cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		if got, want := line(), sigName(sig); got != want {
			t.Errorf("sent %s to tether; the command got %q, want %s", want, got, want)
		}
	}
	// 34, the C library's SIGRTMIN, which the Go runtime reserves and
	// cannot catch: tether ignores it and lives on.
	if err := cmd.Process.Signal(syscall.Signal(34)); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Process.Signal(syscall.SIGUSR1)
	if got := line(); got != "SIGUSR1" {
		t.Errorf("after signal 34, then USR1: the command got %q, want SIGUSR1 (tether alive)", got)
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	<-done
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("exit %d after TERM, want 0 (the command's own)", code)
	}
}

// readLineTimeout reads one line, or fails after a generous deadline.
func readLineTimeout(r *bufio.Reader) (string, error) {
	ch := make(chan string, 1)
	go func() {
		l, _ := r.ReadString('\n')
		ch <- strings.TrimSpace(l)
	}()
	select {
	case l := <-ch:
		return l, nil
	case <-time.After(10 * time.Second):
		return "", fmt.Errorf("no line within 10s, want one")
	}
}

// When the command dies of a signal, tether dies of it too, after its
// cleanup: the caller sees WIFSIGNALED, as Python's subprocess does.
func TestRunDiesBySignal(t *testing.T) {
	cmd := exec.Command(tetherBin, "run", "--", "/bin/sh", "-c", "kill -INT $$")
	cmd.Env = append(proctest.CleanEnv(), proctest.Env(t)...)
	err := cmd.Run()
	ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if !ws.Signaled() || ws.Signal() != syscall.SIGINT {
		t.Errorf("tether of a command killed by SIGINT: %v (%v); want killed by SIGINT", err, ws)
	}
	if python, err := exec.LookPath("python3"); err == nil {
		out, _ := exec.Command(python, "-c", `import subprocess,sys; print(subprocess.run([sys.argv[1],"run","--","sh","-c","kill -INT $$"]).returncode)`, tetherBin).Output()
		if strings.TrimSpace(string(out)) != "-2" {
			t.Errorf("python3 subprocess.run(tether run -- sh -c 'kill -INT $$').returncode = %q, want -2", out)
		}
	}
}

// The grace is one budget, counted from the first TERM: a command that
// takes 1.5 s of a 2 s grace to exit leaves a TERM-ignoring grandchild
// 0.5 s, not 2.
func TestRunGraceIsOneBudget(t *testing.T) {
	r := startTether(t, nil, "run", "--grace", "2s", "--", "/bin/sh", "-c",
		`sh -c "trap '' TERM; echo ready; exec sleep 60" & trap 'sleep 1.5; exit 0' TERM; while :; do sleep 0.05; done`)
	if line := r.line(t); line != "ready" {
		t.Fatalf("command said %q, want ready", line)
	}
	start := time.Now()
	_ = r.cmd.Process.Signal(syscall.SIGTERM)
	r.wait(t)
	// 2 s plus a margin for a loaded machine; counted twice it would be
	// 3.5 s.
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("tether took %v after TERM to end the tree; want about the 2 s grace", took)
	}
}

// Once the command has started, neither tether nor its watchdog keeps
// the start directory (it could not be unmounted); the command starts
// there.
func TestRunLeavesStartDirectory(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(tetherBin, "run", "--", "/bin/sh", "-c", "pwd; cd /; exec sleep 60")
	cmd.Dir = dir
	cmd.Env = append(proctest.CleanEnv(), proctest.Env(t)...)
	out, w := pipe(t)
	cmd.Stdout = w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	t.Cleanup(func() { _ = cmd.Process.Signal(syscall.SIGTERM); _ = cmd.Wait() })
	if line := proctest.ReadLine(t, out); line != dir {
		t.Errorf("the command started in %q, want %q", line, dir)
	}
	tpid := cmd.Process.Pid
	proctest.Eventually(t, "tether and its watchdog out of the start directory", func() bool {
		for _, pid := range append(ptree.Children(proc.Host(), tpid), tpid) {
			if cwd, _ := os.Readlink(fmt.Sprintf("/proc/%d/cwd", pid)); cwd == dir {
				return false
			}
		}
		return true
	})
}

// In the terminal's foreground but not leading its job (sh -c, a make
// recipe), tether leaves its command in the caller's group: it can use
// the terminal.
func TestInteractiveNotLeaderUsesTerminal(t *testing.T) {
	b := startBash(t)
	b.typeLine(`sh -c 'tether run -- sh -c "stty -echo; stty echo; echo O""K"'; echo R""C=$?`)
	out := b.expect("RC=")
	if !strings.Contains(out, "OK") || !strings.Contains(out, "RC=0") {
		t.Errorf("%q; want the command to set the terminal and finish", out)
	}
}

// Ctrl-Z, bg, and the command ends in the background: the shell keeps
// its terminal.
func TestInteractiveBgThenExit(t *testing.T) {
	b := startBash(t)
	b.typeLine("tether run -- sleep 1")
	time.Sleep(200 * time.Millisecond)
	b.keys("\x1a")
	b.expect("Stopped")
	b.typeLine("bg")
	time.Sleep(1500 * time.Millisecond) // the command ends in the background
	b.typeLine("echo alive-$((1+2))")
	b.expect("alive-3")
}

// A job started with & and brought to the foreground with fg gets the
// terminal: cat reads what is typed.
func TestInteractiveBackgroundThenFg(t *testing.T) {
	b := startBash(t)
	b.typeLine("tether run -- cat &")
	time.Sleep(300 * time.Millisecond)
	b.typeLine("fg")
	time.Sleep(300 * time.Millisecond)
	b.typeLine("typed-" + "line")
	b.keys("\x04")
	b.typeLine(`echo R""C=$?`)
	out := b.expect("RC=")
	if strings.Count(out, "typed-line") < 2 || !strings.Contains(out, "RC=0") {
		t.Errorf("%q; want cat to echo typed-line back and exit 0", out)
	}
}

// A command in the foreground that stops itself with SIGSTOP gives the
// prompt back, as it would without tether.
func TestInteractiveSIGSTOP(t *testing.T) {
	b := startBash(t)
	b.typeLine(`tether run -- sh -c 'kill -STOP $$; echo resumed-$((3*3))'`)
	b.expect("Stopped")
	b.typeLine("fg")
	b.expect("resumed-9")
}

// A pipeline with tether in it stops whole on Ctrl-Z and goes on with fg,
// and its other members keep the terminal: tether leaves its command in
// the job's group.
func TestInteractivePipeline(t *testing.T) {
	b := startBash(t)
	b.typeLine(`tether run -- sh -c 'sleep 1; echo first-$((2*2))' | sh -c 'cat; read l </dev/tty; echo read-"$l"'`)
	time.Sleep(200 * time.Millisecond)
	b.keys("\x1a")
	b.expect("Stopped")
	b.typeLine("fg")
	b.expect("first-4")
	b.typeLine("typed")
	b.expect("read-typed")
}

// A job of several members started with & can be brought to the
// foreground and read the terminal: tether's command is in the job's
// group, which fg moves whole.
func TestInteractiveBackgroundPipelineThenFg(t *testing.T) {
	b := startBash(t)
	b.typeLine(`tether run -- sh -c 'read l; echo got-"$l" >&2' >/dev/null &`)
	time.Sleep(300 * time.Millisecond)
	b.typeLine("fg")
	time.Sleep(300 * time.Millisecond)
	b.typeLine("typed")
	b.expect("got-typed")
}
