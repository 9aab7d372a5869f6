//go:build linux

package proctest

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"
)

// A helper mode is registered in the test file that uses it, as os/exec's
// own tests register their helper commands, so that a mode goes with the
// tests that need it. A registered mode that no test of a whole run
// started fails the run: a helper left behind by a rewritten test is dead
// code that still reads as if something tested it.
var modes = struct {
	sync.Mutex
	byName map[string]*mode
	used   map[string]bool
}{byName: map[string]*mode{}, used: map[string]bool{}}

type mode struct {
	fn func()
	// checked: registered with Register, so reported when unused. The
	// built-in modes serve every package.
	checked bool
	// starts are the modes this one starts in processes of its own.
	starts []string
}

func init() {
	builtin(Wait, func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
	})
	builtin(Exit, func() {
		code, _ := strconv.Atoi(os.Getenv("PROCTEST_STATUS"))
		os.Exit(code)
	})
	builtin(Retitle, func() {
		stay := os.Getenv("PROCTEST_STAY") != ""
		if err := retitle(os.Getenv("PROCTEST_TITLE")); err != nil {
			fmt.Fprintln(os.Stderr, "retitle:", err)
			os.Exit(2)
		}
		// The environment is gone now, and with it every lookup.
		fmt.Println(os.Getpid())
		if stay {
			for {
				time.Sleep(time.Hour)
			}
		}
		_, _ = io.Copy(io.Discard, os.Stdin)
	})
	builtin(Orphan, func() {
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), Mode(Wait))
		cmd.Stdin = os.Stdin
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := cmd.Start(); err != nil {
			fmt.Fprintln(os.Stderr, "orphan:", err)
			os.Exit(2)
		}
		fmt.Println(cmd.Process.Pid)
	})
	Starts(Orphan, Wait)
	builtin(Refuse, refuseMode)
	netModes()
}

func builtin(name string, fn func()) {
	add(name, &mode{fn: fn})
}

func add(name string, m *mode) {
	modes.Lock()
	defer modes.Unlock()
	if name == "" || m.fn == nil {
		panic("proctest: a helper mode needs a name and a function")
	}
	if _, ok := modes.byName[name]; ok {
		panic(fmt.Sprintf("proctest: helper mode %q registered twice", name))
	}
	modes.byName[name] = m
}

// Register adds a helper mode that a re-executed test binary runs when
// PROCTEST_MODE names it, and returns its name. Call it in a package-level
// var in the test file that uses the mode:
//
//	var modeSleep = proctest.Register("sleep", func() { ... })
//
// Helper runs the mode and exits 0 when fn returns. Registering a name
// twice, or a built-in mode's, panics. When the whole package ran and
// passed, Run fails the run if no test started the mode (through Mode,
// Start or StartUnreaped, or through a mode that Starts it).
func Register(name string, fn func()) string {
	add(name, &mode{fn: fn, checked: true})
	return name
}

// Starts declares that helper mode name starts the helper modes sub, in
// processes of its own that the test does not see: a test that starts
// name starts them too. It returns name, so that it can wrap Register:
//
//	var modeTree = proctest.Starts(proctest.Register("tree", tree), modeSleep)
func Starts(name string, sub ...string) string {
	modes.Lock()
	defer modes.Unlock()
	m := lookup(name)
	for _, s := range sub {
		lookup(s)
	}
	m.starts = append(m.starts, sub...)
	return name
}

// Mode is the environment entry that makes a re-executed test binary a
// helper in mode name, "PROCTEST_MODE=name", for a helper that is not
// started by Start (tether runs it as its command, say). It marks the mode
// used, in the test process that builds the environment: that is what
// counts, whichever process then runs the helper. It panics if name is
// not a mode.
func Mode(name string) string {
	MaySkip(name)
	return ModeVar + "=" + name
}

// MaySkip marks helper mode name used for a test that may skip before it
// starts the helper (no terminal, a tool missing here): the run is still
// whole, and the mode is still that test's. It panics if name is not a
// mode.
func MaySkip(name string) {
	modes.Lock()
	defer modes.Unlock()
	markUsed(name)
}

func markUsed(name string) {
	m := lookup(name)
	if modes.used[name] {
		return
	}
	modes.used[name] = true
	for _, s := range m.starts {
		markUsed(s)
	}
}

// lookup is the mode named name; modes is locked.
func lookup(name string) *mode {
	m, ok := modes.byName[name]
	if !ok {
		panic(fmt.Sprintf("proctest: no helper mode %q: register it with proctest.Register", name))
	}
	return m
}

// Helper runs the registered helper mode named by PROCTEST_MODE and
// exits; it returns at once when the binary was not started as a helper.
// Call it first in TestMain.
func Helper() {
	name := os.Getenv(ModeVar)
	if name == "" {
		return
	}
	modes.Lock()
	m, ok := modes.byName[name]
	modes.Unlock()
	if !ok {
		fmt.Fprintf(os.Stderr, "proctest: unknown helper mode %q\n", name)
		os.Exit(2)
	}
	m.fn()
	os.Exit(0)
}

// unusedModes are the registered modes that no test started, sorted.
func unusedModes() []string {
	modes.Lock()
	defer modes.Unlock()
	var out []string
	for name, m := range modes.byName {
		if m.checked && !modes.used[name] {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// wholeRun reports whether every test of the package was asked for: a
// test left out by -run, -skip or -short may be the one that starts a
// mode.
func wholeRun() bool {
	for _, name := range []string{"test.run", "test.skip", "test.list"} {
		if f := flag.Lookup(name); f != nil && f.Value.String() != "" {
			return false
		}
	}
	return !testing.Short()
}
