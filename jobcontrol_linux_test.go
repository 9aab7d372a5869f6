package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tetherproc/tether/internal/proctest"
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
