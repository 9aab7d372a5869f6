package e2e

import (
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tetherproc/tether/internal/pidfd"
	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/proctest"
	"github.com/tetherproc/tether/internal/ptree"
)

// helperEnv is the environment that makes the test binary, run by tether,
// a helper in mode: the re-exec pattern of os/exec's own tests. Each mode
// is registered in the file of the tests that use it.
func helperEnv(mode string, extra ...string) []string {
	return append([]string{proctest.Mode(mode)}, extra...)
}

func pidsOf(s string) []int {
	var out []int
	for _, f := range strings.Fields(s) {
		if n, err := strconv.Atoi(f); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// forever blocks without tripping the runtime's deadlock detector, which
// a bare select{} in a program with no other goroutine would.
func forever() {
	for {
		time.Sleep(time.Hour)
	}
}

// sigName is a signal's name, or "signal N" for a real-time one.
func sigName(s syscall.Signal) string {
	if n := unix.SignalName(s); n != "" {
		return n
	}
	return "signal " + strconv.Itoa(int(s))
}

// needFull skips a test of what only Linux's full supervision path does
// (the parent-death signal, the child subreaper, containment) when the
// tests run the portable one.
func needFull(t *testing.T, what string) {
	t.Helper()
	if portable {
		t.Skip("not on the portable path (tetherportable): " + what)
	}
}

// strand leaves the run of tether tpid stranded, as a SIGKILL of tether
// and of its watchdog at the same moment would: its watchdog is stopped
// first (a dead one would be replaced), then kill ends tether, then the
// watchdog is killed through a handle taken while it was still tether's
// unreaped child.
func strand(t *testing.T, tpid int, kill func()) {
	t.Helper()
	var wds []*pidfd.Handle
	for _, c := range ptree.Children(proc.Host(), tpid) {
		if args, _ := proc.Host().Cmdline(c); len(args) > 0 && args[0] == "tether-watchdog" {
			h, err := pidfd.Open(proc.Host(), c)
			if err != nil {
				t.Fatal(err)
			}
			if err := h.Signal(syscall.SIGSTOP); err != nil {
				t.Fatal(err)
			}
			wds = append(wds, h)
		}
	}
	if len(wds) == 0 {
		t.Fatalf("tether %d has no watchdog to stop", tpid)
	}
	kill()
	for _, h := range wds {
		_ = h.Signal(syscall.SIGKILL)
		h.Close()
	}
}
