//go:build linux && !tetherportable

package pidfd_test

import (
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/tetherproc/tether/internal/pidfd"
	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/ptree"
)

// A handle on the caller's child tells, without a read of /proc, that it
// runs, that it is done once it exits (a zombie, not yet reaped), and
// that it was reaped once its waiter reaped it.
func TestOpenChild(t *testing.T) {
	if ok, _ := pidfd.Pidfds(); !ok {
		t.Skip("no pidfds on this kernel")
	}
	cmd := exec.Command("/bin/sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	h, ok := pidfd.OpenChild(cmd.Process.Pid)
	if !ok {
		t.Fatal("OpenChild refused a child just started")
	}
	defer h.Close()
	if reaped, ok := h.Reaped(); !ok || reaped {
		t.Errorf("running: Reaped() = %v, %v, want false, true", reaped, ok)
	}
	if h.Done() {
		t.Error("running: Done() = true")
	}
	if err := h.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for !h.Done() {
		if time.Now().After(deadline) {
			t.Fatal("killed: never Done")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if reaped, ok := h.Reaped(); !ok || reaped {
		t.Errorf("zombie: Reaped() = %v, %v, want false, true (WNOWAIT leaves it)", reaped, ok)
	}
	if st, err := proc.Host().Stat(cmd.Process.Pid); err != nil || !st.Zombie() {
		t.Errorf("zombie: stat %+v, %v, want a zombie", st, err)
	}
	_ = cmd.Wait() // its status is still there for its own waiter
	if cmd.ProcessState == nil || cmd.ProcessState.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Errorf("Wait after Reaped: %v, want killed by SIGKILL", cmd.ProcessState)
	}
	if reaped, ok := h.Reaped(); !ok || !reaped {
		t.Errorf("reaped: Reaped() = %v, %v, want true, true", reaped, ok)
	}
}

// A process whose first thread exited while another runs is a zombie by
// its stat, as one that is wholly gone is; its handle tells them apart:
// it is not done, and its running thread's children are found.
func TestDoneLeaderExited(t *testing.T) {
	if ok, _ := pidfd.Pidfds(); !ok {
		t.Skip("no pidfds on this kernel")
	}
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3 to exit a process's first thread with")
	}
	// The second thread starts a sleep, then the first thread exits.
	cmd := exec.Command(python, "-c", `
import ctypes, subprocess, threading, time
def run():
    subprocess.Popen(["/bin/sleep", "60"])
    time.sleep(60)
t = threading.Thread(target=run)
t.start()
time.sleep(0.3)
ctypes.CDLL(None).pthread_exit(None)
`)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	h, ok := pidfd.OpenChild(pid)
	if !ok {
		t.Fatal("OpenChild refused a child just started")
	}
	defer func() {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		_ = cmd.Wait()
		h.Close()
	}()
	var st proc.Stat
	deadline := time.Now().Add(10 * time.Second)
	for st, _ = proc.Host().Stat(pid); !st.Zombie(); st, _ = proc.Host().Stat(pid) {
		if time.Now().After(deadline) {
			t.Fatal("the first thread never exited")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if h.Done() {
		t.Error("leader exited, a thread running: Done() = true")
	}
	tree := ptree.Look(proc.Host()).Subtree(st)
	if len(tree) != 1 {
		t.Errorf("leader exited: subtree %v, want the running thread's sleep", tree)
	}
	for _, m := range tree {
		if err := syscall.Kill(m.PID, syscall.SIGKILL); err != nil {
			t.Error(err)
		}
	}
}
