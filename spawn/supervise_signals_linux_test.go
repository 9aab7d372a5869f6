package spawn_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/tetherproc/tether/internal/proctest"
	"github.com/tetherproc/tether/spawn"
)

// statusField is the value of key in /proc/self/status ("SigIgn", say):
// the calling thread group's, as the kernel keeps it.
func statusField(key string) string {
	data, _ := os.ReadFile("/proc/self/status")
	for _, line := range bytes.Split(data, []byte{'\n'}) {
		if k, v, ok := bytes.Cut(line, []byte{':'}); ok && string(k) == key {
			return string(bytes.TrimSpace(v))
		}
	}
	return "?"
}

// catchable are the signals the catcher reports: those a shell, a
// terminal or a process manager sends a job.
var catchable = []syscall.Signal{syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGUSR1,
	syscall.SIGUSR2, syscall.SIGALRM, syscall.SIGWINCH, syscall.SIGTERM}

// modeCatcher is a command that reports the signals it gets: first
// "catcher PID ignores MASK", its SigIgn as its caller left it (Go's
// runtime keeps an inherited SIG_IGN of HUP and INT until they are
// caught), then "ready" once it catches each of catchable, then one line
// with the name of each that comes. TERM ends it, exit 0.
var modeCatcher = proctest.Register("catcher", func() {
	fmt.Printf("catcher %d ignores %s\n", os.Getpid(), statusField("SigIgn"))
	ch := make(chan os.Signal, 16)
	for _, sig := range catchable {
		signal.Notify(ch, sig)
	}
	fmt.Println("ready")
	for sig := range ch {
		fmt.Println(unix.SignalName(sig.(syscall.Signal)))
		if sig == syscall.SIGTERM {
			os.Exit(0)
		}
	}
})

// startCatcher runs the catcher under Supervise in a helper started as
// spec says, and returns it when the catcher is ready, with the
// catcher's ignored signals. A TERM that reaches Supervise starts its
// grace, after which it kills the tree: a generous one lets the catcher
// end by itself.
func startCatcher(t *testing.T, spec proctest.Spec) (*supervision, uint64) {
	t.Helper()
	spec.Env = append(slices.Clip(spec.Env), commandEnv(helperCommand(modeCatcher)...), "PROCTEST_GRACE=20s")
	s := startSupervision(t, modeSupervise, spec)
	var pid int
	var ign uint64
	if line := s.next(t); !scanned(line, "catcher %d ignores %x", &pid, &ign) {
		t.Fatalf("the command said %q, want its PID and ignored signals", line)
	}
	if line := s.next(t); line != "ready" {
		t.Fatalf("the command said %q, want ready", line)
	}
	return s, ign
}

// scanned reports whether line is format, filled into args, whole.
func scanned(line, format string, args ...any) bool {
	n, err := fmt.Sscanf(line, format, args...)
	return err == nil && n == len(args)
}

// A program that catches a signal of its own before Supervise still has
// the others forwarded: what its caller blocked is read from the thread
// that forks the command, not from the process's first thread, which Go's
// signal thread may be, blocking all it does not deliver.
func TestSuperviseForwardsAfterNotify(t *testing.T) {
	s, _ := startCatcher(t, proctest.Spec{Env: []string{"PROCTEST_NOTIFY=1"}})
	for _, sig := range []syscall.Signal{syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGWINCH, syscall.SIGTERM} {
		s.signal(t, sig)
		if got := s.next(t); got != unix.SignalName(sig) {
			t.Fatalf("sent %s to the program; the command got %q", unix.SignalName(sig), got)
		}
	}
}

// A signal sent to the program that runs Supervise reaches its command:
// every one the command reports, in the order sent; TERM ends it, and
// Supervise returns its status.
func TestSuperviseForwardsSignals(t *testing.T) {
	for _, v := range supervisors {
		t.Run(v.name, func(t *testing.T) {
			s, _ := startCatcher(t, proctest.Spec{Env: v.env})
			for _, sig := range catchable {
				s.signal(t, sig)
				if got := s.next(t); got != unix.SignalName(sig) {
					t.Errorf("sent %s to the program; the command got %q", unix.SignalName(sig), got)
				}
			}
			if status, _, lines := s.result(t); status != 0 || len(lines) > 0 {
				t.Errorf("status %d after %q, want 0 at once: the command exits 0 on TERM", status, lines)
			}
		})
	}
}

// A signal ignored when Supervise starts stays ignored in the command
// and is not forwarded: one the program set to SIG_IGN itself (here HUP
// and INT), and one it inherited ignored (HUP, under nohup, which Go's
// runtime leaves ignored). The command, which catches them all once it
// runs, gets the USR1 sent after them first. Were they forwarded, they
// would come first: a process is given its pending signals lowest
// number first, and so is a Go program's channel.
func TestSuperviseKeepsIgnoredSignals(t *testing.T) {
	nohup, err := exec.LookPath("nohup")
	// Contained in a PID namespace too, where the namespace's init, which
	// catches every other signal, starts the command.
	pidns := struct {
		name string
		env  []string
	}{"sole reaper in a PID namespace", []string{"PROCTEST_SOLE=1", "PROCTEST_CONTAIN=pidns"}}
	variants := supervisors
	if !portable { // the portable path (macOS's) has no PID namespace
		variants = append(slices.Clip(supervisors), pidns)
	}
	for _, v := range variants {
		for _, tc := range []struct {
			name    string
			spec    proctest.Spec
			ignored []syscall.Signal
		}{
			{"by the program", proctest.Spec{Env: []string{"PROCTEST_IGNORE=" + strconv.Itoa(int(syscall.SIGHUP)) + " " + strconv.Itoa(int(syscall.SIGINT))}}, []syscall.Signal{syscall.SIGHUP, syscall.SIGINT}},
			{"inherited", proctest.Spec{Path: nohup, Args: []string{os.Args[0]}}, []syscall.Signal{syscall.SIGHUP}},
		} {
			t.Run(v.name+"/"+tc.name, func(t *testing.T) {
				if tc.name == "inherited" && nohup == "" {
					t.Skipf("no nohup to start the program with HUP ignored: %v", err)
				}
				tc.spec.Env = append(tc.spec.Env, v.env...)
				s, ign := startCatcher(t, tc.spec)
				var want uint64
				for _, sig := range tc.ignored {
					want |= sigBit(sig)
				}
				if ign&want != want {
					t.Errorf("the command started with SigIgn %#x, want %s ignored (%#x) as the program had them", ign, sigNames(tc.ignored), want)
				}
				for _, sig := range append(slices.Clip(tc.ignored), syscall.SIGUSR1) {
					s.signal(t, sig)
				}
				if got := s.next(t); got != "SIGUSR1" {
					t.Errorf("sent %s, then USR1, to a program that ignores %[1]s; the command got %q first, want SIGUSR1", sigNames(tc.ignored), got)
				}
				s.signal(t, syscall.SIGTERM)
				if status, _, lines := s.result(t); status != 0 {
					t.Errorf("status %d after %q, want 0: the command exits 0 on TERM", status, lines)
				}
			})
		}
	}
}

func sigBit(sig syscall.Signal) uint64 { return 1 << (uint(sig) - 1) }

func sigNames(sigs []syscall.Signal) string {
	names := make([]string, len(sigs))
	for i, sig := range sigs {
		names[i] = unix.SignalName(sig)
	}
	return strings.Join(names, " ")
}

// modeSignalState is a program with signal handling of its own (HUP
// ignored, USR2 caught on a channel; with PROCTEST_SUBREAPER set, a child
// subreaper itself) that runs Supervise, as a library caller or, with
// PROCTEST_SOLE set, as the sole reaper. It prints its state before and
// after ("before|after SigIgn SigCgt SigBlk subreaper"), and then, as a
// library caller, whether its own USR2 channel still gets USR2, and last
// sends itself TERM, which it does not catch and which should end it as
// it would have before Supervise.
var modeSignalState = proctest.Register("signal-state", func() {
	state := func(when string) {
		var subreaper int32
		if err := unix.Prctl(unix.PR_GET_CHILD_SUBREAPER, uintptr(unsafe.Pointer(&subreaper)), 0, 0, 0); err != nil {
			fmt.Println("error -1 PR_GET_CHILD_SUBREAPER:", err)
			os.Exit(2)
		}
		fmt.Println(when, statusField("SigIgn"), statusField("SigCgt"), statusField("SigBlk"), subreaper)
	}
	if os.Getenv("PROCTEST_SUBREAPER") != "" {
		if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
			fmt.Println("error -1 PR_SET_CHILD_SUBREAPER:", err)
			os.Exit(2)
		}
	}
	sole := os.Getenv("PROCTEST_SOLE") != ""
	signal.Ignore(syscall.SIGHUP)
	own := make(chan os.Signal, 1)
	signal.Notify(own, syscall.SIGUSR2)
	state("before")
	// Long enough a run for the rarely sent signals to be caught too
	// (some 10 ms after the command starts).
	report(spawn.Supervise(context.Background(), inherit(exec.Command("/bin/sh", "-c", "sleep 0.3")), spawn.Options{SoleReaper: sole}))
	state("after")
	if sole {
		return
	}
	_ = unix.Kill(os.Getpid(), unix.SIGUSR2)
	select {
	case <-own:
		fmt.Println("own USR2 caught")
	case <-time.After(10 * time.Second):
		fmt.Println("own USR2 lost")
	}
	_ = unix.Kill(os.Getpid(), unix.SIGTERM)
	time.Sleep(10 * time.Second)
	fmt.Println("survived TERM")
})

// Supervise gives a library caller's process its signal handling and
// child-subreaper flag back as it found them: the same SigIgn, SigCgt
// and SigBlk in /proc/self/status (Go's runtime keeps a handler it once
// installed for a stop signal, and Supervise ignores the C library's
// reserved SIGRTMIN while it runs), the program's own channel still
// served, an uncaught TERM still fatal; and a subreaper flag the
// program set itself is its own still. As the sole reaper only the flag
// is promised back.
func TestSuperviseGivesSignalStateBack(t *testing.T) {
	for _, tc := range []struct {
		name      string
		env       []string
		subreaper string
	}{
		{"library", nil, "0"},
		{"library, a subreaper itself", []string{"PROCTEST_SUBREAPER=1"}, "1"},
		{"sole reaper", []string{"PROCTEST_SOLE=1"}, "0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sole := len(tc.env) > 0 && tc.env[0] == "PROCTEST_SOLE=1"
			s := startSupervision(t, modeSignalState, proctest.Spec{Env: tc.env})
			_, before := s.upTo(t, "before ")
			if status, _, lines := s.result(t); status != 0 || len(lines) > 0 {
				t.Fatalf("status %d after %q, want 0 at once", status, lines)
			}
			after := s.next(t)
			var b, a [4]string
			if !scanned(before, "before %s %s %s %s", &b[0], &b[1], &b[2], &b[3]) || !scanned(after, "after %s %s %s %s", &a[0], &a[1], &a[2], &a[3]) {
				t.Fatalf("the program said %q and %q, want its state before and after", before, after)
			}
			if b[3] != tc.subreaper || a[3] != b[3] {
				t.Errorf("child subreaper %s before Supervise, %s after; want %s both times", b[3], a[3], tc.subreaper)
			}
			if sole {
				return
			}
			for i, name := range []string{"SigIgn", "SigCgt", "SigBlk"} {
				if a[i] != b[i] {
					t.Errorf("%s %s before Supervise, %s after; want it given back", name, b[i], a[i])
				}
			}
			if line := s.next(t); line != "own USR2 caught" {
				t.Errorf("the program's own USR2 channel after Supervise: %q, want it served", line)
			}
			select {
			case <-s.p.Done():
			case <-time.After(20 * time.Second):
				t.Fatal("the program still runs 20 s after it sent itself TERM")
			}
			if ws, ok := s.p.Cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGTERM {
				t.Errorf("the program ended with %v after it sent itself TERM, want killed by TERM: Supervise left TERM caught", s.p.Cmd.ProcessState)
			}
		})
	}
}

// The end of Supervise's context is a TERM to the command: a sleep dies
// of it, Supervise returns its status (128+TERM) at once, with an error
// that wraps the context's, and leaves no zombie.
func TestSuperviseContextEndsCommand(t *testing.T) {
	for _, v := range supervisors {
		t.Run(v.name, func(t *testing.T) {
			env := append(slices.Clip(v.env), "PROCTEST_TIMEOUT=300ms")
			s := supervise(t, []string{"/bin/sleep", "60"}, env...)
			_, line := s.upTo(t, "cancelled ")
			if want := fmt.Sprintf("cancelled %d true", 128+int(unix.SIGTERM)); line != want {
				t.Errorf("got %q, want %q", line, want)
			}
			if _, zombies := s.upTo(t, "zombies"); zombies != "zombies" {
				t.Errorf("left %q", zombies)
			}
		})
	}
}
