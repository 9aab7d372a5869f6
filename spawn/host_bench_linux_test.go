package spawn_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/tetherproc/tether/marker"
	"github.com/tetherproc/tether/spawn"
)

// The cost of a child's life under a Host against a bare exec.Cmd: 100
// children started and stopped one after another, each a sleep that
// would run a minute. The bare one is exec.Command, Process.Kill and
// Wait (its tree, were it more than one process, would be left
// running); the Host's is Start, Stop of the whole tree (TERM, the run
// id scan, the wait until it is gone) and Wait. Run side by side with
// go test -bench Host -run '^$' ./spawn/; the ratio of the two is the
// price of the tree's end and of the ties.
func BenchmarkHostStartStop100(b *testing.B) {
	b.Run("exec", func(b *testing.B) {
		for b.Loop() {
			for i := 0; i < 100; i++ {
				cmd := exec.Command("/bin/sleep", "60")
				if err := cmd.Start(); err != nil {
					b.Fatal(err)
				}
				_ = cmd.Process.Kill()
				_ = cmd.Wait()
			}
		}
	})
	b.Run("floor", func(b *testing.B) {
		starts, env := floorSpawner(b)
		for b.Loop() {
			for i := 0; i < 100; i++ {
				if err := floorStartStop(starts, env); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	for _, opts := range []struct {
		name    string
		newHost func() (*spawn.Host, error)
	}{{"host", spawn.NewHostWithoutWatchdog}, {"host+watchdog", spawn.NewHost}} {
		b.Run(opts.name, func(b *testing.B) {
			h, err := opts.newHost()
			if err != nil {
				b.Fatal(err)
			}
			defer h.Close(context.Background())
			for b.Loop() {
				for i := 0; i < 100; i++ {
					if err := hostStartStop(h); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// The Host against its floor, a child of each in turn: the machine's
// drift (another job, the CPU's clock) falls on both alike, so that the
// ratio holds where the separate runs above wander by a fifth. It
// reports the milliseconds per 100 children of each and their ratio.
func BenchmarkHostVsFloor(b *testing.B) {
	starts, env := floorSpawner(b)
	h, err := spawn.NewHostWithoutWatchdog()
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close(context.Background())
	var floor, host time.Duration
	n := 0
	for b.Loop() {
		for i := 0; i < 100; i++ {
			t0 := time.Now()
			if err := floorStartStop(starts, env); err != nil {
				b.Fatal(err)
			}
			t1 := time.Now()
			if err := hostStartStop(h); err != nil {
				b.Fatal(err)
			}
			floor += t1.Sub(t0)
			host += time.Since(t1)
		}
		n++
	}
	b.ReportMetric(float64(floor.Milliseconds())/float64(n), "floor-ms/100")
	b.ReportMetric(float64(host.Milliseconds())/float64(n), "host-ms/100")
	b.ReportMetric(float64(host)/float64(floor), "host/floor")
}

// floorSpawner is the floor's spawner, a goroutine on a locked thread
// that runs each start sent to it until the benchmark ends, and the
// environment of its children, stamped with two markers.
func floorSpawner(b *testing.B) (chan<- func(), []string) {
	starts := make(chan func(), 1)
	go func() {
		runtime.LockOSThread()
		for start := range starts {
			start()
		}
	}()
	b.Cleanup(func() { close(starts) })
	return starts, append(os.Environ(), "TETHER=1", "TETHER_RUN_ID=0123456789abcdef0123456789abcdef")
}

// hostStartStop is one child of h, started, stopped and waited for.
func hostStartStop(h *spawn.Host) error {
	cmd := exec.Command("/bin/sleep", "60")
	c, err := h.Start(cmd, spawn.ChildOptions{Stamp: marker.Stamp{Name: "bench"}})
	if err != nil {
		return err
	}
	err = c.Stop(context.Background())
	_ = cmd.Wait()
	return err
}

// floorStartStop is the least a child's life costs with the guarantee a
// Host gives, the floor the Host is measured against: started from a
// spawner goroutine on a locked thread with a parent-death signal, in a
// process group of its own, with two marker variables; at its end its
// children list read once, its group signalled, Wait, and the group
// checked empty.
func floorStartStop(starts chan<- func(), env []string) error {
	cmd := exec.Command("/bin/sleep", "60")
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	done := make(chan error)
	starts <- func() { done <- cmd.Start() }
	if err := <-done; err != nil {
		return err
	}
	pid := cmd.Process.Pid
	if _, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/task/" + strconv.Itoa(pid) + "/children"); err != nil {
		return err
	}
	if err := syscall.Kill(-pid, syscall.SIGTERM); err != nil {
		return err
	}
	_ = cmd.Wait()
	if err := syscall.Kill(-pid, 0); err != syscall.ESRCH {
		return fmt.Errorf("group %d not empty: %v", pid, err)
	}
	return nil
}

// The cost of Close of 100 children, each a sleep that ignores TERM,
// with a grace of 0.5 s: the children's trees are found and ended side
// by side, TERM to all, KILL to all once the grace is over, so that it
// takes the grace and little more, not a grace per child.
func BenchmarkHostClose100(b *testing.B) {
	b.StopTimer()
	for range b.N {
		h, err := spawn.NewHostWithoutWatchdog()
		if err != nil {
			b.Fatal(err)
		}
		cmds := make([]*exec.Cmd, 100)
		for i := range cmds {
			cmds[i] = exec.Command("/bin/sh", "-c", "trap '' TERM; exec /bin/sleep 60")
			if _, err := h.Start(cmds[i], spawn.ChildOptions{Stamp: marker.Stamp{Name: "bench"}, Grace: 500 * time.Millisecond}); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
		if err := h.Close(context.Background()); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		for _, cmd := range cmds {
			_ = cmd.Wait()
		}
	}
}
