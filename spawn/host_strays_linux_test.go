package spawn_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/proctest"
	"github.com/tetherproc/tether/marker"
	"github.com/tetherproc/tether/procid"
	"github.com/tetherproc/tether/spawn"
)

// orphanScript is a child whose grandchild leaves at once: a session of
// its own, its parent gone before the Host's first look at the tree, so
// that only its run id ties it to the run.
const orphanScript = `sh -c 'setsid sleep 60 & echo $! $$'; exec sleep 60`

// stopOrphan starts orphanScript under h, waits for the grandchild to be
// re-parented away from the child's tree, stops the child and reports
// the grandchild and whether it outlived the Stop.
func stopOrphan(h *spawn.Host, env []string) (orphan int, left bool, err error) {
	cmd := exec.Command("/bin/sh", "-c", orphanScript)
	cmd.Env = env
	out, _ := cmd.StdoutPipe()
	c, err := h.Start(cmd, spawn.ChildOptions{Stamp: marker.Stamp{Name: "orphans"}, Grace: 2 * time.Second})
	if err != nil {
		return 0, false, err
	}
	defer func() { _ = cmd.Wait() }()
	line, _ := bufio.NewReader(out).ReadString('\n')
	var parent int
	if _, err := fmt.Sscan(line, &orphan, &parent); err != nil {
		return 0, false, fmt.Errorf("no grandchild: %q", line)
	}
	st, err := proc.Host().Stat(orphan)
	if err != nil {
		return orphan, false, err
	}
	m := procid.ID{PID: orphan, StartTime: st.StartTime}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		st, err := proc.Host().Stat(orphan)
		if err != nil {
			return orphan, false, err
		}
		if st.PPID != parent && st.Session == orphan {
			break // in its own session, re-parented: its parent ended
		}
		if time.Now().After(deadline) {
			return orphan, false, fmt.Errorf("grandchild %d never left the child's tree", orphan)
		}
	}
	if err := c.Stop(context.Background()); err != nil {
		return orphan, false, err
	}
	return orphan, alive(m), nil
}

// modeSubreaperHost is a child subreaper whose child is a Host program:
// the Host's orphans are re-parented to it, one of the Host's ancestors
// but neither the Host nor init. It prints the helper's line.
var modeSubreaperHost = proctest.Starts(proctest.Register("subreaper-host", func() {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), proctest.Mode(modeOrphanHost))
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
}), "orphan-host")

// modeOrphanHost is a Host program that stops a child whose grandchild
// left: "orphan PID PARENT ended" or "… left".
var modeOrphanHost = proctest.Register("orphan-host", func() {
	h, err := spawn.NewHostWithoutWatchdog()
	if err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
	defer h.Close(context.Background())
	orphan, left, err := stopOrphan(h, os.Environ())
	if err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
	word := "ended"
	if left {
		word = "left"
		_ = unix.Kill(orphan, unix.SIGKILL) // this helper's own grandchild
	}
	fmt.Printf("orphan %d %d %s\n", orphan, os.Getppid(), word)
})

// A grandchild that leaves the child's tree before the Host has looked
// at it (a session of its own, its parent gone) is ended by Stop: found
// among the processes born since the Host last looked, by the run id it
// carries, wherever it was re-parented, with no read of every process.
func TestHostStopEndsEarlyOrphans(t *testing.T) {
	t.Run("re-parented to init", func(t *testing.T) {
		h := newHost(t, false)
		orphan, left, err := stopOrphan(h, append(os.Environ(), proctest.Env(t)...))
		if err != nil {
			t.Fatal(err)
		}
		if left {
			_ = unix.Kill(orphan, unix.SIGKILL) // the test's own grandchild
			t.Fatalf("Stop returned with the child's orphan %d running", orphan)
		}
	})
	t.Run("re-parented to a subreaper", func(t *testing.T) {
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), append(proctest.Env(t), proctest.Mode(modeSubreaperHost))...)
		cmd.Stderr = os.Stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("helper: %v: %s", err, out)
		}
		var orphan, adopter int
		var word string
		if _, err := fmt.Sscanf(string(out), "orphan %d %d %s", &orphan, &adopter, &word); err != nil {
			t.Fatalf("helper said %q", out)
		}
		t.Logf("helper: %s", out)
		if word != "ended" {
			t.Fatalf("Stop returned with the child's orphan %d running, adopted by the subreaper %d", orphan, adopter)
		}
	})
}
