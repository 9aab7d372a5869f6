package spawn_test

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/proctest"
	"github.com/tetherproc/tether/marker"
	"github.com/tetherproc/tether/probe"
	"github.com/tetherproc/tether/spawn"
)

// Children started through the spawner survive other goroutines that
// lock their thread and exit, which destroys the thread: a child forked
// from such a thread would get its parent-death signal at once.
func TestSpawnerSurvivesThreadChurn(t *testing.T) {
	const n = 20
	var wg sync.WaitGroup
	var churned atomic.Int64
	stop := make(chan struct{})
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				done := make(chan struct{})
				go func() {
					runtime.LockOSThread()
					close(done)
					// Exits locked: the runtime destroys the thread.
				}()
				<-done
				churned.Add(1)
			}
		}()
	}
	var cmds []*exec.Cmd
	host := newHost(t, false)
	for i := 0; i < n; i++ {
		cmd := exec.Command("/bin/sleep", "30")
		cmd.Env = proctest.Env(t)
		if _, err := host.Start(cmd, spawn.ChildOptions{Signal: syscall.SIGKILL}); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	// The children live through a few hundred destroyed threads after
	// the last one started: as many as would kill most of them had they
	// been forked from ordinary goroutines.
	from := churned.Load()
	proctest.Eventually(t, "300 threads destroyed", func() bool { return churned.Load()-from >= 300 })
	close(stop)
	wg.Wait()
	killed := 0
	for _, cmd := range cmds {
		p, err := proc.Host().Process(cmd.Process.Pid)
		if err != nil || p.Zombie {
			killed++
		}
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}
	if killed > 0 {
		t.Errorf("%d of %d children died while other threads exited; want none", killed, n)
	}
}

// Host.Start stamps the command it starts, keeps what the caller set of
// its SysProcAttr (in a copy: the caller's is left as it was), and
// leaves it to the caller to wait for; it starts nothing on a bad name
// or run id.
func TestStartStamps(t *testing.T) {
	host := newHost(t, false)
	cmd := exec.Command("/bin/true")
	cmd.Env = []string{"PATH=/bin", "TETHER_NAME=stale"}
	mine := &syscall.SysProcAttr{Ctty: 7} // kept, and unused without Setctty
	cmd.SysProcAttr = mine
	child, err := host.Start(cmd, spawn.ChildOptions{Stamp: marker.Stamp{Name: "web"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("cmd.Wait: %v", err)
	}
	if !(marker.Markers{}).Match(cmd.Env, "web") || (marker.Markers{}).Match(cmd.Env, "stale") {
		t.Errorf("env %q", cmd.Env)
	}
	if v, _ := lookup(cmd.Env, marker.RunIDVar); v != child.RunID() || v == "" || marker.ValidateRunID(v) != nil {
		t.Errorf("run id %q, the child says %q", v, child.RunID())
	}
	a := cmd.SysProcAttr
	want := syscall.SIGTERM
	if portable {
		want = 0 // no parent-death signal on the portable path
	}
	if a.Pdeathsig != want || !a.Setpgid || a.Ctty != 7 {
		t.Errorf("SysProcAttr %+v", a)
	}
	if mine.Pdeathsig != 0 || mine.Setpgid {
		t.Errorf("the caller's SysProcAttr was changed: %+v", mine)
	}
	for _, cfg := range []spawn.ChildOptions{{Stamp: marker.Stamp{Name: "a=b"}}, {Stamp: marker.Stamp{RunID: "xyz"}}} {
		cmd := exec.Command("/bin/true")
		if _, err := host.Start(cmd, cfg); err == nil || cmd.Process != nil {
			t.Errorf("Start with %+v: %v, process %v; want an error and nothing started", cfg, err, cmd.Process)
		}
	}
}

// The child of a Go program started through spawn is recognised by
// probe, and dies with the program's spawner thread's process.
func TestStartedChildIsTethered(t *testing.T) {
	cmd := exec.Command("/bin/sleep", "30")
	cmd.Env = proctest.Env(t)
	if _, err := newHost(t, false).Start(cmd, spawn.ChildOptions{Stamp: marker.Stamp{Name: "sleeper"}}); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	r, err := probe.Check(cmd.Process.Pid, probe.Query{Name: "sleeper"})
	if err != nil || r.Verdict != probe.Supervised || r.PGID != cmd.Process.Pid {
		t.Errorf("%v %+v", err, r)
	}
}

// A child checked the moment Start returns is already recognised. Start
// returns once the child's execve has begun, and for a moment after that
// the new image has not yet laid out its environment, which then reads as
// empty; a check must wait that moment out rather than call the child
// foreign. Several starters side by side and three busy shells load the
// machine so that the moment is hit: without the wait, about one check in
// a few thousand failed this way under this load.
func TestCheckedTheMomentStartReturns(t *testing.T) {
	if os.Getenv("TETHER_LONG") == "" {
		t.Skip("stress test (800 spawns on a loaded machine): set TETHER_LONG=1")
	}
	const starters, each = 4, 200
	for i := 0; i < 3; i++ {
		busy := exec.Command("/bin/sh", "-c", "while :; do :; done")
		busy.Env = proctest.Env(t)
		if err := busy.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { _ = busy.Process.Kill(); _ = busy.Wait() }()
	}
	env := proctest.Env(t)
	host := newHost(t, false)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var wrong []string
	for s := 0; s < starters; s++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				cmd := exec.Command("/bin/sleep", "30")
				cmd.Env = env
				if _, err := host.Start(cmd, spawn.ChildOptions{Stamp: marker.Stamp{Name: "quick"}}); err != nil {
					t.Error(err)
					return
				}
				r, err := probe.Check(cmd.Process.Pid, probe.Query{Name: "quick"})
				_ = cmd.Process.Kill()
				_ = cmd.Wait()
				if err != nil || r.Verdict != probe.Supervised {
					mu.Lock()
					wrong = append(wrong, fmt.Sprintf("%d: %s (%s) %v", r.PID, r.Verdict, r.Why.Kind, err))
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if len(wrong) > 0 {
		t.Errorf("%d of %d children checked right after Start were not supervised: %s", len(wrong), starters*each, strings.Join(wrong, "; "))
	}
}

// lookup returns the value of key in env.
func lookup(env []string, key string) (string, bool) {
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && k == key {
			return v, true
		}
	}
	return "", false
}
