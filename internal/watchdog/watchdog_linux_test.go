package watchdog

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tetherproc/tether/internal/proctest"
	"github.com/tetherproc/tether/marker"
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
			runID := marker.NewRunID()
			member := proctest.Start(t, proctest.Wait, proctest.Spec{Env: []string{marker.RunIDVar + "=" + runID}})
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
	runID := marker.NewRunID()
	member := proctest.Start(t, proctest.Wait, proctest.Spec{Env: []string{marker.RunIDVar + "=" + runID}})
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

// The second stage takes nothing but a run id, from the head of its
// list: an entry such as TETHER=1, or anything else a scan would match
// more widely, is refused, and nothing is ended; so is a run id on the
// command line with no list, or a list with none.
func TestWatchdogRefusesOtherThanRunID(t *testing.T) {
	member := proctest.Start(t, proctest.Wait, proctest.Spec{Env: []string{"REVIEW_MARK=xyz"}})
	for _, head := range []string{"REVIEW_MARK=xyz", "TETHER=1", marker.RunIDVar + "=" + marker.NewRunID(), "ABC", ""} {
		list, err := memberFile()
		if err != nil {
			t.Fatal(err)
		}
		if head != "" {
			fmt.Fprintf(list, "r %s\nend\n", head)
		}
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(os.Args[0], Arg, "0")
		cmd.Env = proctest.CleanEnv()
		cmd.ExtraFiles = []*os.File{r, nil, list} // fd 3 and 5
		out, err := cmd.CombinedOutput()
		r.Close()
		w.Close()
		list.Close()
		if cmd.ProcessState.ExitCode() != 125 || !strings.Contains(string(out), "RUN_ID heading the list") {
			t.Errorf("%s 0 with the list %q: %v, %q; want exit 125 and a usage line", Arg, head, err, out)
		}
	}
	select {
	case <-member.Done():
		t.Error("a process with the given entry ended")
	default:
	}
}
