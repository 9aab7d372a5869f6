package spawn_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/tetherproc/tether/internal/proctest"
	"github.com/tetherproc/tether/marker"
	"github.com/tetherproc/tether/spawn"
)

// modeHostNoClone3 is a program whose Host starts a child with
// ContainAuto ("auto"), then one with ContainCgroup ("cgroup"), where the kernel cannot
// start a child in a cgroup: it prints the child's cgroup, or the error.
var modeHostNoClone3 = proctest.Register("host-no-clone3", func() {
	h, err := spawn.NewHostWithoutWatchdog()
	if err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
	defer h.Close(context.Background())
	for _, m := range []struct {
		mode spawn.Containment
		name string
	}{{spawn.ContainAuto, "auto"}, {spawn.ContainCgroup, "cgroup"}} {
		mode := m.name
		cmd := exec.Command("/bin/sh", "-c", "tail -n 1 /proc/self/cgroup")
		out, _ := cmd.StdoutPipe()
		c, err := h.Start(cmd, spawn.ChildOptions{Stamp: marker.Stamp{Name: "refused"}, Contain: m.mode})
		var ce *spawn.ContainError
		switch {
		case errors.As(err, &ce):
			fmt.Printf("%s refused: %v\n", mode, err)
			continue
		case err != nil:
			fmt.Printf("%s error: %v\n", mode, err)
			continue
		}
		line := make([]byte, 256)
		n, _ := out.Read(line)
		_ = cmd.Wait()
		_ = c.Stop(context.Background())
		fmt.Printf("%s started in %s\n", mode, strings.TrimSpace(string(line[:n])))
	}
})

// Where clone3 is refused, a Host's child cannot be born in a cgroup: with
// ContainAuto it starts uncontained, with ContainCgroup it is refused,
// naming the call, and nothing is started. (ENOSYS: a cgo-linked test
// binary's own threads need clone3 answered so, as glibc falls back then.)
func TestHostWithoutClone3(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root (a cgroup of its own)")
	}
	cmd := proctest.Refusing(t, []proctest.Refusal{{Call: "clone3", Errno: syscall.ENOSYS}}, os.Args[0])
	cmd.Env = append(cmd.Env, proctest.ExecMode(modeHostNoClone3))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("helper: %v: %s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "auto started in ") || strings.Contains(lines[0], "/tether-") {
		t.Errorf("ContainAuto: %q; want the child started outside any run's cgroup", lines)
	}
	why := "clone3 with CLONE_INTO_CGROUP"
	if portable {
		why = "not the portable path" // which makes no cgroup, clone3 or not
	}
	if len(lines) != 2 || !strings.HasPrefix(lines[1], "cgroup refused: ") || !strings.Contains(lines[1], why) {
		t.Errorf("ContainCgroup: %q; want it refused, naming clone3", lines)
	}
}
