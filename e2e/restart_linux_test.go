package e2e

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/proctest"
)

// A holder that something starts again when it ends: reclaim --foreign
// ends it, sees the port taken again within the settle window, names
// the new holder and what started it, and exits 1; the starter is never
// signalled.

// restartLoop runs `while [ -e FLAG ]; do SERVER; sleep PAUSE; done` in
// bash, SERVER being a serve helper on port: a shell loop that restarts a
// server. It returns the loop's PID; the loop and its server end with
// the test.
func restartLoop(t *testing.T, port string, pause string) int {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	flag := filepath.Join(t.TempDir(), "run")
	write(t, flag, "")
	cmd := exec.Command(bash, "-c", `while [ -e "$1" ]; do "$2" >/dev/null; sleep "$3"; done`, "loop", flag, os.Args[0], pause)
	cmd.Env = append(append(proctest.CleanEnv(), proctest.Env(t)...), helperEnv(modeServe, "PROCTEST_LISTEN=tcp4:127.0.0.1:"+port)...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		os.Remove(flag)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		// The server of the moment is the loop's child, and ours: once
		// it ends, the loop sees no flag and ends too.
		for {
			for _, kid := range childrenOf(cmd.Process.Pid) {
				_ = syscall.Kill(kid, syscall.SIGKILL)
			}
			select {
			case <-done:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	})
	return cmd.Process.Pid
}

// childrenOf lists pid's children, as its main thread's children list
// holds them.
func childrenOf(pid int) []int {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
	if err != nil {
		return nil
	}
	return pidsOf(string(data))
}

func TestRestartLoopNamed(t *testing.T) {
	t.Parallel()
	port := freePort(t, "tcp")
	loop := restartLoop(t, port, "0")
	listening(t, port)
	start, err := proc.Host().Stat(loop)
	if err != nil {
		t.Fatal(err)
	}
	r := tether(t, nil, "reclaim", "--port", port, "--foreign", "--settle", "5s")
	if r.code != 1 || !strings.Contains(r.stdout, "TERM: gone") || !strings.Contains(r.stdout, "took it again") ||
		!strings.Contains(r.stdout, fmt.Sprintf("started by PID %d (", loop)) {
		t.Errorf("reclaim of a restarted holder: %+v; want the holder ended, the new one named with the loop %d, exit 1", r, loop)
	}
	if now, err := proc.Host().Stat(loop); err != nil || now.StartTime != start.StartTime || now.State == 'Z' {
		t.Errorf("the loop %d was ended: %v", loop, err)
	}
	// The same as JSON: the new holder and its parent as fields.
	listening(t, port)
	r = tether(t, nil, "reclaim", "--port", port, "--foreign", "--settle", "5s", "--json")
	if r.code != 1 || !strings.Contains(r.stdout, `"taken_again":[{"pid":`) || !strings.Contains(r.stdout, fmt.Sprintf(`"parent_pid":%d`, loop)) || !strings.Contains(r.stdout, `"free":false`) {
		t.Errorf("reclaim --json of a restarted holder: %+v", r)
	}
	// With --settle 0 nothing is watched: the port is said free, as it
	// was for a moment; or, where the loop's new server took it before
	// the one look after the reclaim, held by it, taken again. Never by
	// a process out of sight: it is in sight.
	listening(t, port)
	r = tether(t, nil, "reclaim", "--port", port, "--foreign", "--settle", "0")
	free := r.code == 0 && !strings.Contains(r.stdout, "took it again")
	retaken := r.code == 1 && strings.Contains(r.stdout, "took it again")
	if !free && !retaken || strings.Contains(r.stdout, "cannot see") {
		t.Errorf("reclaim --settle 0: %+v; want free, or taken again by the loop's new server", r)
	}
	if r := tether(t, nil, "reclaim", "--port", port, "--settle", "-1s"); r.code != exitUsage {
		t.Errorf("--settle -1s: %+v", r)
	}
}

// A loop that pauses before it starts the server again takes the port
// after the default settle window: its pause (a child started after the
// reclaim began) keeps the watch going, and the new holder is named.
func TestRestartLoopPausedNamed(t *testing.T) {
	t.Parallel()
	port := freePort(t, "tcp")
	loop := restartLoop(t, port, "0.8")
	listening(t, port)
	r := tether(t, nil, "reclaim", "--port", port, "--foreign")
	if r.code != 1 || !strings.Contains(r.stdout, "took it again") || !strings.Contains(r.stdout, fmt.Sprintf("started by PID %d (", loop)) {
		t.Errorf("reclaim of a holder restarted after a pause: %+v; want the new holder named with the loop %d, exit 1", r, loop)
	}
}

// modeKeeper is a process manager as pm2's daemon is: its title is
// pm2's (PROCTEST_TITLE, as its argv, by an exec of itself), and it runs
// the serve helper (PROCTEST_LISTEN) as its program "api", with pm2's
// variables, starting it again whenever it exits, until its stdin
// closes.
var modeKeeper = proctest.Starts(proctest.Register("keeper", func() {
	if title := os.Getenv("PROCTEST_TITLE"); os.Args[0] != title {
		err := syscall.Exec(os.Getenv("PROCTEST_SELF"), []string{title}, os.Environ())
		fmt.Fprintln(os.Stderr, "keeper: exec:", err)
		os.Exit(2)
	}
	done := make(chan struct{})
	go func() { _, _ = io.Copy(io.Discard, os.Stdin); close(done) }()
	for {
		cmd := exec.Command(os.Getenv("PROCTEST_SELF"))
		cmd.Env = append(os.Environ(), proctest.Mode(modeServe), "name=api", "pm_id=0")
		if err := cmd.Start(); err != nil {
			fmt.Fprintln(os.Stderr, "keeper:", err)
			os.Exit(2)
		}
		exit := make(chan struct{})
		go func() { _ = cmd.Wait(); close(exit) }()
		select {
		case <-done:
			_ = cmd.Process.Kill()
			<-exit
			return
		case <-exit:
			time.Sleep(100 * time.Millisecond)
		}
	}
}), modeServe)

// A program of a process manager is never signalled: the manager would
// start it again. It is named with the manager's command.
func TestRestartProcessManagerNamed(t *testing.T) {
	t.Parallel()
	port := freePort(t, "tcp")
	title := "PM2 v5.3.0: God Daemon (" + t.TempDir() + ")"
	p := proctest.Start(t, modeKeeper, proctest.Spec{Env: []string{"PROCTEST_SELF=" + os.Args[0], "PROCTEST_TITLE=" + title, "PROCTEST_LISTEN=tcp4:127.0.0.1:" + port}})
	listening(t, port)
	daemon := p.PID()
	dry := tether(t, nil, "reclaim", "--port", port, "--foreign", "--dry-run")
	r := tether(t, nil, "reclaim", "--port", port, "--foreign")
	want := "pm2 process api (daemon " + strconv.Itoa(daemon) + ")"
	for _, got := range []result{dry, r} {
		if got.code != 1 || !strings.Contains(got.stdout, want) || !strings.Contains(got.stdout, "pm2 stop api stops it") || strings.Contains(got.stdout, "TERM") {
			t.Errorf("reclaim of a pm2 program: %+v; want %q named with pm2 stop api, nothing signalled, exit 1", got, want)
		}
	}
}
