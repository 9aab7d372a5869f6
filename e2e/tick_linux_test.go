package e2e

import (
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/tetherproc/tether/internal/kill"
	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/proctest"
	"github.com/tetherproc/tether/marker"
	"github.com/tetherproc/tether/procid"
)

// A daemon that left the tree while it carried the run id (orphaned, in
// a session of its own) and wrote its title over its environment only
// later is ended with the run. On the portable path, with no subreaper
// to keep it below tether, only a tick finds it: by the run id in its
// environment, read the first time the tick sees it, after which it is
// on the list written down; the scan of every environment at the TERM
// no longer can. On the full path the subreaper keeps it below tether.
func TestRunEndsEscapedDaemonRenamedLater(t *testing.T) {
	t.Parallel() // it waits out a grace or a window, and signals only its own
	perl, err := exec.LookPath("perl")
	if err != nil {
		t.Skip("no perl to rename the daemon with $0")
	}
	// perl's $0 writes over the whole argument and environment area.
	script := `(setsid ` + perl + ` -e 'select(undef, undef, undef, 1.5); $0 = "srv-daemon"; sleep 120' </dev/null >/dev/null 2>&1 & echo $!); exec sleep 120`
	r := startTether(t, nil, "run", "--grace", "1s", "--", "/bin/sh", "-c", script)
	pids := pidsOf(r.line(t))
	if len(pids) != 1 {
		t.Fatalf("the command printed %v, want the daemon's PID", pids)
	}
	fs := proc.Host()
	st, err := fs.Stat(pids[0])
	if err != nil {
		t.Fatalf("daemon %d: %v; want it running", pids[0], err)
	}
	daemon := procid.ID{PID: pids[0], StartTime: st.StartTime}
	t.Cleanup(func() { _ = kill.SignalIn(fs, daemon, syscall.SIGKILL) })
	proctest.Eventually(t, "the daemon renamed, its environment written over", func() bool {
		args, _ := fs.Cmdline(daemon.PID)
		env, _ := fs.Environ(daemon.PID)
		return len(args) > 0 && args[0] == "srv-daemon" && !slices.ContainsFunc(env, func(e string) bool { return strings.HasPrefix(e, marker.RunIDVar+"=") })
	})
	if portable {
		// Out of tether's tree by its parent links.
		for pid := daemon.PID; pid > 1; {
			st, err := fs.Stat(pid)
			if err != nil {
				break
			}
			if st.PPID == r.cmd.Process.Pid {
				t.Fatalf("daemon %d: a descendant of tether still (parent %d); want it orphaned", daemon.PID, pid)
			}
			pid = st.PPID
		}
	}
	if err := r.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := r.wait(t); code != 143 {
		t.Errorf("exit %d, want 143 (stderr %q)", code, r.errOut.String())
	}
	wantEnded(t, []procid.ID{daemon}, "after tether got TERM")
}
