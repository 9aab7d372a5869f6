package spawn_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
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

var modePdeathsig = proctest.Register("pdeathsig", pdeathsigHelper)

// pdeathsigHelper is a library caller of Supervise: on one locked thread
// it sets its own parent-death signal to PROCTEST_SIGNAL, runs /bin/true
// under Supervise (following its parent), and prints the signal the
// thread has afterwards.
func pdeathsigHelper() {
	runtime.LockOSThread()
	before, _ := strconv.Atoi(os.Getenv("PROCTEST_SIGNAL"))
	if err := unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(before), 0, 0, 0); err != nil {
		fmt.Println("set:", err)
		os.Exit(2)
	}
	if _, err := spawn.Supervise(context.Background(), exec.Command("/bin/true"), spawn.Options{}); err != nil {
		fmt.Println("supervise:", err)
		os.Exit(2)
	}
	var after, subreaper int32
	if err := unix.Prctl(unix.PR_GET_PDEATHSIG, uintptr(unsafe.Pointer(&after)), 0, 0, 0); err != nil {
		fmt.Println("get:", err)
		os.Exit(2)
	}
	if err := unix.Prctl(unix.PR_GET_CHILD_SUBREAPER, uintptr(unsafe.Pointer(&subreaper)), 0, 0, 0); err != nil {
		fmt.Println("get subreaper:", err)
		os.Exit(2)
	}
	fmt.Println(after, subreaper)
	os.Exit(0)
}

// Supervise follows its caller for the run only: the parent-death signal
// it arms on its thread is put back as it was when it returns, so that a
// library caller's thread neither keeps it nor loses its own; and the
// library caller's process is no child subreaper after it.
func TestSuperviseRestoresParentDeathSignal(t *testing.T) {
	for _, before := range []unix.Signal{0, unix.SIGUSR1} {
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(proctest.CleanEnv(), proctest.Mode(modePdeathsig), "PROCTEST_SIGNAL="+strconv.Itoa(int(before)))
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("helper: %v (%s)", err, out)
		}
		if got := strings.TrimSpace(string(out)); got != strconv.Itoa(int(before))+" 0" {
			t.Errorf("parent-death signal %d and no subreaper before Supervise, %q after; want both put back", before, got)
		}
	}
}

var modeFailedSupervise = proctest.Register("failed-supervise", func() {
	if _, err := spawn.Supervise(context.Background(), exec.Command("/nonexistent/command"), spawn.Options{}); err == nil {
		fmt.Println("supervise: no error")
		os.Exit(2)
	}
	// Supervise unregisters its signals as it returns, without waiting
	// for the runtime to be done with it (tether exits right after): a
	// moment later no registration may be left.
	time.Sleep(200 * time.Millisecond)
	_ = unix.Kill(os.Getpid(), unix.SIGTERM)
	time.Sleep(5 * time.Second)
	fmt.Println("survived TERM")
	os.Exit(0)
})

// A Supervise that fails before it starts the command leaves the
// caller's signals as they were: a TERM still ends the caller. (Its
// registration, begun beside the rest of the set-up, once outlasted the
// unregistration, which did not wait for it.)
func TestFailedSuperviseLeavesSignals(t *testing.T) {
	for i := 0; i < 5; i++ {
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(proctest.CleanEnv(), proctest.Mode(modeFailedSupervise))
		out, _ := cmd.Output()
		ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
		if !ws.Signaled() || ws.Signal() != syscall.SIGTERM {
			t.Fatalf("trial %d: the caller ended with %v (%s), want killed by TERM", i, ws, strings.TrimSpace(string(out)))
		}
	}
}
