package watchdog

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tetherproc/tether/internal/proctest"
	"github.com/tetherproc/tether/probe"
)

// A watchdog whose supervisor goes away without saying it is done (the
// pipe closes, as when the supervisor is killed) ends every process of
// the run, and exits. Both forms are run: the waiting shell that hands
// over to the program, and the program waiting by itself where there is
// no shell.
func TestWatchdogEndsRunWhenSupervisorVanishes(t *testing.T) {
	for _, c := range []struct{ name, shell string }{
		{"shell", "/bin/sh"},
		{"no shell", "/nonexistent/sh"},
	} {
		t.Run(c.name, func(t *testing.T) {
			runID := probe.NewRunID()
			member := proctest.Start(t, proctest.Wait, proctest.Spec{Env: []string{probe.RunIDVar + "=" + runID}})
			wd, err := Start(Spec{Path: os.Args[0], Shell: c.shell, RunID: runID, Grace: time.Second})
			if err != nil {
				t.Fatal(err)
			}
			_ = wd.w.Close()
			select {
			case <-member.Done():
			case <-time.After(10 * time.Second):
				t.Error("the run's process is alive 10 s after its supervisor went")
			}
			var ws unix.WaitStatus
			if _, err := unix.Wait4(wd.pid, &ws, 0, nil); err != nil || !ws.Exited() || ws.ExitStatus() != 0 {
				t.Errorf("watchdog: %v, status %v; want exit 0", err, ws)
			}
		})
	}
}

// A watchdog told that the supervisor is done leaves the run alone.
func TestWatchdogToldDoneEndsNothing(t *testing.T) {
	runID := probe.NewRunID()
	member := proctest.Start(t, proctest.Wait, proctest.Spec{Env: []string{probe.RunIDVar + "=" + runID}})
	wd, err := Start(Spec{Path: os.Args[0], Shell: "/bin/sh", RunID: runID, Grace: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := wd.w.Write([]byte(lineDone + "\n")); err != nil {
		t.Fatal(err)
	}
	_ = wd.w.Close()
	var ws unix.WaitStatus
	if _, err := unix.Wait4(wd.pid, &ws, 0, nil); err != nil || !ws.Exited() || ws.ExitStatus() != 0 {
		t.Errorf("watchdog: %v, status %v; want exit 0", err, ws)
	}
	select {
	case <-member.Done():
		t.Error("the run's process ended although the supervisor said it was done")
	default:
	}
}

// The second stage takes nothing but a run id: an entry such as TETHER=1,
// or anything else a scan would match more widely, is refused, and
// nothing is ended.
func TestWatchdogRefusesOtherThanRunID(t *testing.T) {
	member := proctest.Start(t, proctest.Wait, proctest.Spec{Env: []string{"REVIEW_MARK=xyz"}})
	for _, arg := range []string{"REVIEW_MARK=xyz", "TETHER=1", probe.RunIDVar + "=" + probe.NewRunID(), "ABC"} {
		cmd := exec.Command(os.Args[0], Arg, arg, "0")
		cmd.Env = proctest.CleanEnv()
		out, err := cmd.CombinedOutput()
		if cmd.ProcessState.ExitCode() != 125 || !strings.Contains(string(out), "want RUN_ID") {
			t.Errorf("%s %s 0: %v, %q; want exit 125 and a usage line", Arg, arg, err, out)
		}
	}
	select {
	case <-member.Done():
		t.Error("a process with the given entry ended")
	default:
	}
}
