package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/proctest"
	"github.com/tetherproc/tether/marker"
	"github.com/tetherproc/tether/procid"
)

// Ports held through a user's own engine: rootless Podman (rootlessport,
// slirp4netns as its port handler, a host-network container below its
// conmon) and rootless Docker (rootlesskit's port driver). The holder is
// named by its container and its user; --foreign stops the container
// through the user's engine, never by signalling a helper. CI starts
// both engines for a test user (.ci/rootless-engines.sh); the tests skip,
// saying why, where they do not run.

// rootlessUser is the user whose engines the tests use.
type rootlessUser struct {
	name, home, runtime, image string
	uid, gid                   int
}

func rootlessEngines(t *testing.T, engine string) rootlessUser {
	t.Helper()
	name := os.Getenv("TETHER_TEST_ROOTLESS_USER")
	if name == "" || os.Getenv("TETHER_TEST_ROOTLESS_"+engine) != "1" {
		t.Skipf("no rootless %s: CI starts one for a test user (.ci/rootless-engines.sh start sets TETHER_TEST_ROOTLESS_USER and TETHER_TEST_ROOTLESS_%s)", strings.ToLower(engine), engine)
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root, to act as the engines' user")
	}
	u, err := user.Lookup(name)
	if err != nil {
		t.Fatalf("user %s: %v", name, err)
	}
	rl := rootlessUser{name: name, home: u.HomeDir, runtime: os.Getenv("TETHER_TEST_ROOTLESS_RUNTIME_DIR"), image: os.Getenv("TETHER_TEST_ROOTLESS_IMAGE")}
	rl.uid, _ = strconv.Atoi(u.Uid)
	rl.gid, _ = strconv.Atoi(u.Gid)
	if rl.runtime == "" {
		rl.runtime = "/run/user/" + u.Uid
	}
	if rl.image == "" {
		rl.image = "tb-bb:1"
	}
	return rl
}

// env is the user's environment, as a login gives it.
func (rl rootlessUser) env(extra ...string) []string {
	return append([]string{"HOME=" + rl.home, "USER=" + rl.name, "LOGNAME=" + rl.name, "LANG=C.UTF-8",
		"PATH=/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin", "XDG_RUNTIME_DIR=" + rl.runtime}, extra...)
}

func (rl rootlessUser) cred() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(rl.uid), Gid: uint32(rl.gid)}}
}

// run runs a command as the user, failing the test if it fails.
func (rl rootlessUser) run(t *testing.T, args ...string) string {
	t.Helper()
	out, err := rl.try(args...)
	if err != nil {
		t.Fatalf("%s as %s: %v: %s", strings.Join(args, " "), rl.name, err, out)
	}
	return out
}

func (rl rootlessUser) try(args ...string) (string, error) {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env, cmd.SysProcAttr, cmd.Dir = rl.env(), rl.cred(), rl.home
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// tether runs the built binary as the user.
func (rl rootlessUser) tether(t *testing.T, args ...string) result {
	t.Helper()
	cmd := exec.Command(tetherBin, args...)
	cmd.Env, cmd.SysProcAttr, cmd.Dir = append(rl.env(), proctest.Env(t)...), rl.cred(), "/"
	return tetherCmd(t, cmd, nil)
}

// podman starts a container of the user's Podman, removed when the test
// ends, and returns its name and id.
func (rl rootlessUser) podman(t *testing.T, args []string, command ...string) (name, id string) {
	t.Helper()
	name = "tether-rl-" + marker.NewRunID()[:10]
	t.Cleanup(func() { _, _ = rl.try("podman", "rm", "-f", "-t", "0", name) })
	run := append([]string{"podman", "run", "-d", "--name", name, "--ulimit", "nofile=1024:1024", "--ulimit", "nproc=1024:1024"}, args...)
	id = rl.run(t, append(append(run, rl.image), command...)...)
	return name, lastLine(id)
}

func (rl rootlessUser) dockerSock() string { return filepath.Join(rl.runtime, "docker.sock") }

// docker starts a container of the user's rootless Docker.
func (rl rootlessUser) docker(t *testing.T, args []string, command ...string) (name, id string) {
	t.Helper()
	name = "tether-rl-" + marker.NewRunID()[:10]
	host := "unix://" + rl.dockerSock()
	t.Cleanup(func() { _, _ = rl.try("docker", "-H", host, "rm", "-f", name) })
	run := append([]string{"docker", "-H", host, "run", "-d", "--name", name}, args...)
	id = rl.run(t, append(append(run, rl.image), command...)...)
	return name, lastLine(id)
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// holderOf is the PID that ps --json shows holding port, as the user,
// with its manager's fields.
type psManaged struct {
	PID     int `json:"pid"`
	Manager struct {
		Kind     string `json:"kind"`
		Engine   string `json:"engine"`
		ID       string `json:"id"`
		Name     string `json:"name"`
		Image    string `json:"image"`
		Rootless bool   `json:"rootless"`
		UID      int    `json:"uid"`
		Proxy    bool   `json:"proxy"`
		Helper   string `json:"helper"`
	} `json:"manager"`
}

func holderOf(t *testing.T, r result) psManaged {
	t.Helper()
	var rows []psManaged
	if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil || len(rows) == 0 || rows[0].PID == 0 {
		t.Fatalf("ps --json: %v: %+v", err, r)
	}
	return rows[0]
}

// running reports whether the user's engine says the container runs.
func runsIn(t *testing.T, rl rootlessUser, engine []string, name string) bool {
	t.Helper()
	return rl.run(t, append(engine, "inspect", "-f", "{{.State.Running}}", name)...) == "true"
}

// stillThere reports whether the process p is the one it was.
func stillThere(p procid.ID) bool {
	st, err := proc.Host().Stat(p.PID)
	return err == nil && st.StartTime == p.StartTime && !st.Zombie()
}

func memberOf(t *testing.T, pid int) procid.ID {
	t.Helper()
	st, err := proc.Host().Stat(pid)
	if err != nil {
		t.Fatalf("holder %d: %v", pid, err)
	}
	return procid.ID{PID: pid, StartTime: st.StartTime}
}

func TestContainerRootlessPodman(t *testing.T) {
	rl := rootlessEngines(t, "PODMAN")
	podman := []string{"podman"}
	for _, tc := range []struct {
		name   string
		args   []string
		inside bool   // the container serves the port itself, on the host's network
		helper string // the program that holds the port for it
		asRoot bool   // reclaimed by root, with --any-user
	}{
		{name: "rootlessport", args: []string{"-p", "127.0.0.1:PORT:80"}, helper: "rootlessport"},
		{name: "slirp4netns port handler", args: []string{"--network", "slirp4netns:port_handler=slirp4netns", "-p", "127.0.0.1:PORT:80"}, helper: "slirp4netns"},
		{name: "host network, restart always", args: []string{"--network", "host", "--restart", "always"}, inside: true, asRoot: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			port := freePort(t, "tcp")
			args := strings.Split(strings.ReplaceAll(strings.Join(tc.args, "\x00"), "PORT", port), "\x00")
			command := []string{"/bin/busybox", "httpd", "-f", "-p", "80"}
			if tc.inside {
				command = []string{"/bin/busybox", "httpd", "-f", "-p", "127.0.0.1:" + port}
			}
			name, id := rl.podman(t, args, command...)
			listening(t, port)
			want := fmt.Sprintf("container %s (localhost/%s, %s) via Podman (rootless, uid %d)", name, rl.image, id[:12], rl.uid)
			r := rl.tether(t, "ps", "--port", port)
			if !strings.Contains(r.stdout, want) {
				t.Errorf("ps --port as %s: %+v; want %q", rl.name, r, want)
			}
			h := holderOf(t, rl.tether(t, "ps", "--port", port, "--json"))
			if m := h.Manager; m.Kind != "container" || m.Engine != "Podman" || m.ID != id || m.Name != name || !m.Rootless || m.UID != rl.uid || m.Proxy == tc.inside || m.Helper != tc.helper {
				t.Errorf("ps --json manager: %+v; want the container, rootless, uid %d, helper %q", m, rl.uid, tc.helper)
			}
			holder := memberOf(t, h.PID)
			dry := rl.tether(t, "reclaim", "--port", port, "--foreign", "--dry-run")
			if dry.code != 0 || !strings.Contains(dry.stdout, "would be stopped through Podman") || !runsIn(t, rl, podman, name) {
				t.Errorf("dry run: %+v; want 0, the container would be stopped, nothing done", dry)
			}
			// Root sees the user's container only when asked to.
			if r := tether(t, nil, "ps", "--port", port); r.code != 0 || !strings.Contains(r.stdout, fmt.Sprintf("of uid %d (%s): --any-user to see it", rl.uid, rl.name)) {
				t.Errorf("ps --port as root: %+v; want the user's holder named, with --any-user", r)
			}
			if r := tether(t, nil, "ps", "--port", port, "--any-user"); !strings.Contains(r.stdout, want) {
				t.Errorf("ps --port --any-user as root: %+v; want %q", r, want)
			}
			if !stillThere(holder) {
				t.Fatalf("the holder %d went before the reclaim", holder.PID)
			}
			if tc.asRoot {
				r = tether(t, nil, "reclaim", "--port", port, "--foreign", "--any-user", "--grace", "2s")
			} else {
				r = rl.tether(t, "reclaim", "--port", port, "--foreign", "--grace", "2s")
			}
			if r.code != 0 || !strings.Contains(r.stdout, "stopped through Podman: gone") || !strings.Contains(r.stdout, "port "+port+": free") || strings.Contains(r.stdout, "TERM") {
				t.Errorf("reclaim --foreign: %+v; want the container stopped through Podman, the port free, no signal", r)
			}
			if runsIn(t, rl, podman, name) {
				t.Errorf("the container %s runs after the reclaim", name)
			}
			if tc.inside {
				// A restart policy would have started it again by now.
				time.Sleep(3 * time.Second)
				if r := tether(t, nil, "reclaim", "--port", port, "--dry-run", "--any-user"); r.code != 0 || !strings.Contains(r.stdout, "nothing holds the port") || runsIn(t, rl, podman, name) {
					t.Errorf("3 s after the reclaim: %+v; want the port still free, the container stopped", r)
				}
			}
		})
	}
}

// The user's Podman with no API to ask (as most users' is: without
// systemd's socket unit nothing serves it): root asks the socket of the
// runtime directory the helper runs with, finds none, signals nothing,
// and names the container, found by the conmon that shares the helper's
// network namespace, with the command that stops it as its user (exit 1,
// the dry run too).
func TestContainerRootlessPodmanNoAPI(t *testing.T) {
	rl := rootlessEngines(t, "PODMAN")
	port := freePort(t, "tcp")
	// Podman run with a runtime directory of its own: its rootlessport
	// looks there for the API socket, where none is.
	elsewhere := rl.run(t, "mktemp", "-d", "/tmp/tether-rl-XXXXXX")
	t.Cleanup(func() { _ = os.RemoveAll(elsewhere) })
	podmanThere := func(args ...string) (string, error) {
		cmd := exec.Command("podman", args...)
		cmd.Env, cmd.SysProcAttr, cmd.Dir = rl.env("XDG_RUNTIME_DIR="+elsewhere), rl.cred(), rl.home
		out, err := cmd.CombinedOutput()
		return strings.TrimSpace(string(out)), err
	}
	name := "tether-rl-" + marker.NewRunID()[:10]
	t.Cleanup(func() { _, _ = podmanThere("rm", "-f", "-t", "0", name) })
	if out, err := podmanThere("run", "-d", "--name", name, "-p", "127.0.0.1:"+port+":80", rl.image, "/bin/busybox", "httpd", "-f", "-p", "80"); err != nil {
		t.Fatalf("podman run with XDG_RUNTIME_DIR=%s: %v: %s", elsewhere, err, out)
	}
	listening(t, port)
	env := []string{"XDG_RUNTIME_DIR=", "DOCKER_HOST=unix://" + filepath.Join(elsewhere, "none.sock")}
	h := holderOf(t, tether(t, env, "ps", "--port", port, "--any-user", "--json"))
	helper := memberOf(t, h.PID)
	// The container is named from its conmon's child, its first process,
	// once that is in the helper's network namespace: on a loaded machine
	// a moment after the port listens.
	// The wait is longer than Eventually's, and its failure says what
	// reclaim said last: under CI's load (two engines, PostgreSQL, the
	// race detector's builds) it once took more than 10 s.
	var last result
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		last = tether(t, env, "reclaim", "--port", port, "--foreign", "--any-user", "--dry-run")
		if strings.Contains(last.stdout, "podman stop "+name) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the container's process in the helper's network namespace: not within 30 s; reclaim said last: %+v", last)
		}
	}
	for _, dry := range []bool{true, false} {
		args := []string{"reclaim", "--port", port, "--foreign", "--any-user", "--grace", "1s"}
		if dry {
			args = append(args, "--dry-run")
		}
		r := tether(t, env, args...)
		if r.code != 1 || strings.Contains(r.stdout, "TERM") || !strings.Contains(r.stdout, "signalled;") ||
			!strings.Contains(r.stdout, "podman stop "+name+" stops it, run as uid "+strconv.Itoa(rl.uid)) || strings.Contains(r.stdout, "docker ps") {
			t.Errorf("reclaim with no API (dry run %v): %+v; want 1, nothing signalled, podman stop %s named", dry, r, name)
		}
	}
	if !stillThere(helper) {
		t.Errorf("rootlessport %d was ended", helper.PID)
	}
	if out, err := podmanThere("inspect", "-f", "{{.State.Running}}", name); err != nil || out != "true" {
		t.Errorf("the container does not run on: %v %s", err, out)
	}
}

func TestContainerRootlessDocker(t *testing.T) {
	rl := rootlessEngines(t, "DOCKER")
	docker := []string{"docker", "-H", "unix://" + rl.dockerSock()}
	port := freePort(t, "tcp")
	name, id := rl.docker(t, []string{"-p", "127.0.0.1:" + port + ":80"}, "/bin/busybox", "httpd", "-f", "-p", "80")
	listening(t, port)
	want := fmt.Sprintf("container %s (%s, %s) via Docker (rootless, uid %d)", name, rl.image, id[:12], rl.uid)
	r := rl.tether(t, "ps", "--port", port)
	if !strings.Contains(r.stdout, want) || !strings.Contains(r.stdout, "its port proxy") {
		t.Errorf("ps --port as %s: %+v; want %q, its port proxy", rl.name, r, want)
	}
	h := holderOf(t, rl.tether(t, "ps", "--port", port, "--json"))
	if m := h.Manager; m.Helper != "rootlesskit" || !m.Rootless || m.ID != id {
		t.Errorf("ps --json manager: %+v; want rootlesskit, rootless, %s", m, id)
	}
	kit := memberOf(t, h.PID)
	r = rl.tether(t, "reclaim", "--port", port, "--foreign", "--grace", "2s")
	if r.code != 0 || !strings.Contains(r.stdout, "stopped through Docker: gone") || !strings.Contains(r.stdout, "port "+port+": free") || strings.Contains(r.stdout, "TERM") {
		t.Errorf("reclaim --foreign: %+v; want the container stopped through Docker, the port free, no signal", r)
	}
	if runsIn(t, rl, docker, name) {
		t.Errorf("the container %s runs after the reclaim", name)
	}
	// rootlesskit is the user's whole daemon: it runs on, and so does
	// the engine.
	if !stillThere(kit) {
		t.Errorf("rootlesskit %d is gone", kit.PID)
	}
	if _, err := rl.try(append(docker, "version")...); err != nil {
		t.Errorf("the user's Docker no longer answers: %v", err)
	}
}

// A process that only calls itself by a helper's name is no helper: no
// engine vouches for it, so it is neither stopped through an engine nor
// signalled, and the line says why (exit 1, dry run too).
func TestContainerHelperNameNotTrusted(t *testing.T) {
	t.Parallel()
	for _, program := range []string{"rootlessport", "slirp4netns", "rootlesskit", "pasta"} {
		p, port := proctest.StartLine(t, proctest.Listen, proctest.Spec{Path: proctest.Copy(t, program)})
		holder := memberOf(t, p.PID())
		for _, dry := range []bool{true, false} {
			args := []string{"reclaim", "--port", port, "--foreign", "--grace", "1s"}
			if dry {
				args = append(args, "--dry-run")
			}
			r := tether(t, []string{"DOCKER_HOST=unix://" + filepath.Join(t.TempDir(), "none.sock")}, args...)
			if r.code != 1 || strings.Contains(r.stdout, "TERM") || !strings.Contains(r.stdout, "signalled") || !stillThere(holder) {
				t.Errorf("%s (dry run %v): %+v; want exit 1, nothing signalled, the process left", program, dry, r)
			}
		}
	}
}
