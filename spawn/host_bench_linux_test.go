package spawn_test

import (
	"context"
	"os/exec"
	"testing"

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
	for _, opts := range []struct {
		name string
		spawn.HostOptions
	}{{"host", spawn.HostOptions{}}, {"host+watchdog", spawn.HostOptions{Reexec: true}}} {
		b.Run(opts.name, func(b *testing.B) {
			h, err := spawn.NewHost(opts.HostOptions)
			if err != nil {
				b.Fatal(err)
			}
			defer h.Close(context.Background())
			for b.Loop() {
				for i := 0; i < 100; i++ {
					cmd := exec.Command("/bin/sleep", "60")
					c, err := h.Start(cmd, spawn.Config{Name: "bench"})
					if err != nil {
						b.Fatal(err)
					}
					if err := c.Stop(context.Background()); err != nil {
						b.Fatal(err)
					}
					_ = cmd.Wait()
				}
			}
		})
	}
}
