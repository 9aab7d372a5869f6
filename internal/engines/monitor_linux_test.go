package engines

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/proctest"
)

// modeParent runs PROCTEST_CHILD_PATH (the test binary under another
// name) as a Wait child with PROCTEST_CHILD_ENV added, prints the
// child's PID, and waits with it on their shared stdin: a container's
// monitor, or a process manager, with its program.
var modeParent = proctest.Starts(proctest.Register("parent", func() {
	cmd := exec.Command(os.Getenv("PROCTEST_CHILD_PATH"))
	cmd.Env = append(os.Environ(), proctest.Mode(proctest.Wait))
	if extra := os.Getenv("PROCTEST_CHILD_ENV"); extra != "" {
		cmd.Env = append(cmd.Env, strings.Split(extra, ",")...)
	}
	cmd.Stdin, cmd.Stderr = os.Stdin, os.Stderr
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "parent:", err)
		os.Exit(2)
	}
	fmt.Println(cmd.Process.Pid)
	_, _ = io.Copy(io.Discard, os.Stdin)
	_ = cmd.Wait()
}), proctest.Wait)

// parentAndChild starts a parent named parentName with args, and its
// child; it returns both PIDs once the child runs.
func parentAndChild(t *testing.T, parentName string, childEnv []string, args ...string) (parent, child int) {
	t.Helper()
	p, line := proctest.StartLine(t, modeParent, proctest.Spec{
		Path: proctest.Copy(t, parentName), Args: args,
		Env: []string{"PROCTEST_CHILD_PATH=" + proctest.Copy(t, "server"), "PROCTEST_CHILD_ENV=" + strings.Join(childEnv, ",")}})
	kid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatalf("parent printed %q", line)
	}
	waitCmdline(t, kid, "server")
	return p.PID(), kid
}

// A process below conmon is its container's, whatever its cgroup says,
// when the engine names that process the container's first one.
func TestOfConmonChild(t *testing.T) {
	conmon, kid := parentAndChild(t, Conmon, nil, "--api-version", "1", "-c", idB, "-u", idB, "-n", "tb-host")
	e := newFakeEngine(t, "", &fakeContainer{ID: idB, Name: "tb-host", Image: "tb-bb:1", Pid: kid})
	w := isolated(t, nil)
	w.podmanSocket = e.path
	m := find(proc.Host(), kid, w)
	if m == nil || m.Kind != Container || m.Engine != Podman || m.ID != idB || m.Name != "tb-host" || m.Image != "tb-bb:1" || m.Proxy || m.Unreachable != nil {
		t.Fatalf("Of(child %d of conmon %d) = %+v", kid, conmon, m)
	}

	// The engine's first process of the container is another: the
	// conmon's name is not believed.
	other := newFakeEngine(t, "", &fakeContainer{ID: idB, Name: "tb-host", Image: "tb-bb:1", Pid: 1})
	w.podmanSocket = other.path
	m = find(proc.Host(), kid, w)
	if m == nil || m.Socket != "" || !errors.Is(m.Unreachable, ErrNotVouched) || m.ID != idB {
		t.Errorf("Of(child, engine names another first process) = %+v (%v)", m, m.Unreachable)
	}

	// No engine: the container is still named, from conmon's arguments,
	// and nothing says it may be stopped.
	w.podmanSocket = t.TempDir() + "/none.sock"
	m = find(proc.Host(), kid, w)
	if m == nil || m.Unreachable == nil || m.ID != idB || m.Name != "tb-host" {
		t.Fatalf("Of(child, no engine) = %+v", m)
	}
	if m.Engine != Podman {
		t.Errorf("Of(child, no engine): engine %q, want Podman", m.Engine)
	}

	// A conmon without an id names no container, and vouches for none.
	_, kid = parentAndChild(t, Conmon, nil, "--api-version", "1")
	if m := find(proc.Host(), kid, w); m == nil || m.Unreachable == nil || !strings.Contains(m.Unreachable.Error(), "no -c") {
		t.Errorf("Of(child of a conmon without -c) = %+v", m)
	}
}

// A program of pm2 or supervisord is named with its manager's command.
func TestOfProgramOfProcessManager(t *testing.T) {
	daemon, kid := parentAndChild(t, "supervisord", []string{"SUPERVISOR_PROCESS_NAME=web", "SUPERVISOR_GROUP_NAME=web"})
	m := find(proc.Host(), kid, isolated(t, nil))
	if m == nil || m.Kind != ProcessManager || m.Engine != Supervisord || m.Name != "web" || m.Daemon != daemon {
		t.Fatalf("Of(program of supervisord) = %+v", m)
	}
	_, kid = parentAndChild(t, "supervisord", []string{"SUPERVISOR_PROCESS_NAME=w1", "SUPERVISOR_GROUP_NAME=pool"})
	if m := find(proc.Host(), kid, isolated(t, nil)); m == nil || m.Engine != Supervisord || m.Name != "pool:w1" {
		t.Errorf("Of(program of a group) = %+v", m)
	}
	// A name that is no name is not handed to a command.
	_, kid = parentAndChild(t, "supervisord", []string{"SUPERVISOR_PROCESS_NAME=a b"})
	if m := find(proc.Host(), kid, isolated(t, nil)); m == nil || m.Kind != ProcessManager || m.Name != "" {
		t.Errorf("Of(program with a bad name) = %+v", m)
	}
}

func TestManagerOf(t *testing.T) {
	tests := map[string]string{
		"PM2 v5.3.0: God Daemon (/home/ci/.pm2)":                  PM2,
		"/usr/bin/python3 /usr/bin/supervisord -n -c /etc/s.conf": Supervisord,
		"/usr/local/bin/supervisord":                              Supervisord,
		"python3.11 supervisord":                                  Supervisord,
		"node supervisord":                                        "",
		"bash -c while :; do ./server; done":                      "",
		"PM2 v5.3.0: something else":                              "",
		"":                                                        "",
	}
	for line, want := range tests {
		if got := managerOf(strings.Fields(line)); got != want {
			t.Errorf("managerOf(%q) = %q, want %q", line, got, want)
		}
	}
}
