package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/marker"
)

// A port held by a container or a service manager: the holder is named
// by its manager, a container is stopped through its engine (never by
// signalling its port proxy), and a unit is never signalled. The tests
// use a real engine, the one TETHER_TEST_DOCKER_HOST names (CI starts
// one of its own), and an image made from busybox-static.

// ciImage is the image CI imports from busybox-static.
const ciImage = "tether-ci-busybox:1"

// engineHost is the engine's socket, as DOCKER_HOST names it; the test
// is skipped, saying why, where there is none.
func engineHost(t *testing.T) string {
	t.Helper()
	host := os.Getenv("TETHER_TEST_DOCKER_HOST")
	if host == "" {
		t.Skip("no container engine: set TETHER_TEST_DOCKER_HOST to a Docker engine's unix:// socket (CI starts one)")
	}
	if _, err := exec.LookPath("docker"); err != nil {
		t.Skip("no docker command to start containers with")
	}
	return host
}

// docker runs the docker command against the engine.
func docker(t *testing.T, host string, args ...string) string {
	t.Helper()
	cmd := exec.Command("docker", args...)
	cmd.Env = append(os.Environ(), "DOCKER_HOST="+host)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("docker %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// container runs a busybox httpd on port 80 in a container named for
// the test, removed when the test ends, and returns its name and id.
func container(t *testing.T, host string, args ...string) (name, id string) {
	t.Helper()
	return containerRunning(t, host, args, "/bin/busybox", "httpd", "-f", "-p", "80")
}

// containerRunning runs command in a container made with args.
func containerRunning(t *testing.T, host string, args []string, command ...string) (name, id string) {
	t.Helper()
	name = "tether-test-" + marker.NewRunID()[:10]
	t.Cleanup(func() {
		cmd := exec.Command("docker", "rm", "-f", name)
		cmd.Env = append(os.Environ(), "DOCKER_HOST="+host)
		_ = cmd.Run()
	})
	run := append(append([]string{"run", "-d", "--name", name}, args...), ciImage)
	id = docker(t, host, append(run, command...)...)
	return name, id
}

// containerUp reports whether the container runs, by its engine.
func containerUp(t *testing.T, host, name string) bool {
	return docker(t, host, "inspect", "-f", "{{.State.Running}}", name) == "true"
}

// tetherAt runs tether with the engine as DOCKER_HOST.
func tetherAt(t *testing.T, host string, args ...string) result {
	t.Helper()
	return tether(t, []string{"DOCKER_HOST=" + host}, args...)
}

// listening waits until port has a listener, as tether wait does.
func listening(t *testing.T, port string) {
	t.Helper()
	if r := tether(t, nil, "wait", "--port", port, "--timeout", "20s"); r.code != 0 {
		t.Fatalf("port %s never listened: %+v", port, r)
	}
}

// A published port's holder, docker-proxy, is named by the container
// it serves: in ps and check, as text and as JSON fields.
func TestContainerHolderNamed(t *testing.T) {
	t.Parallel() // its own containers, ports and cgroup; the engine takes a grace to stop one
	host := engineHost(t)
	port := freePort(t, "tcp")
	name, id := container(t, host, "-p", "127.0.0.1:"+port+":80", "--label", "com.docker.compose.project=shop", "--label", "com.docker.compose.service=db")
	listening(t, port)
	want := fmt.Sprintf("container %s (%s, %s) via Docker", name, ciImage, id[:12])
	r := tetherAt(t, host, "ps", "--port", port)
	if r.code != 0 || !strings.Contains(r.stdout, want) || !strings.Contains(r.stdout, "shop/db") || !strings.Contains(r.stdout, "its port proxy") {
		t.Errorf("ps --port: %+v; want %q, the compose project and service, and the proxy said", r, want)
	}
	var list []struct {
		PID     int `json:"pid"`
		Manager struct {
			Kind    string `json:"kind"`
			Engine  string `json:"engine"`
			ID      string `json:"id"`
			Name    string `json:"name"`
			Image   string `json:"image"`
			Project string `json:"compose_project"`
			Service string `json:"compose_service"`
			Proxy   bool   `json:"proxy"`
		} `json:"manager"`
	}
	r = tetherAt(t, host, "ps", "--port", port, "--json")
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil || len(list) == 0 {
		t.Fatalf("ps --json: %v: %s", err, r.stdout)
	}
	m := list[0].Manager
	if m.Kind != "container" || m.Engine != "Docker" || m.ID != id || m.Name != name || m.Image != ciImage || m.Project != "shop" || m.Service != "db" || !m.Proxy {
		t.Errorf("ps --json manager: %+v", m)
	}
	r = tetherAt(t, host, "check", strconv.Itoa(list[0].PID))
	if r.code != 1 || !strings.Contains(r.stdout, want) {
		t.Errorf("check of the proxy: %+v; want foreign (1), run by %q", r, want)
	}
}

// reclaim --foreign stops the container through its engine: the port is
// free, the engine says the container is stopped (not a container Up
// with a mapping to a proxy that is gone), and nothing was signalled.
func TestContainerForeignStoppedThroughEngine(t *testing.T) {
	t.Parallel() // its own containers, ports and cgroup; the engine takes a grace to stop one
	host := engineHost(t)
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"published", []string{"-p", "127.0.0.1:PORT:80"}},
		{"restart always", []string{"--restart", "always", "-p", "127.0.0.1:PORT:80"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			port := freePort(t, "tcp")
			args := strings.Split(strings.ReplaceAll(strings.Join(tc.args, "\x00"), "PORT", port), "\x00")
			name, _ := container(t, host, args...)
			listening(t, port)
			dry := tetherAt(t, host, "reclaim", "--port", port, "--foreign", "--dry-run")
			if dry.code != 0 || !strings.Contains(dry.stdout, "would be stopped through Docker") || !containerUp(t, host, name) {
				t.Errorf("dry run: %+v; want it to say the container would be stopped, and stop nothing", dry)
			}
			r := tetherAt(t, host, "reclaim", "--port", port, "--foreign", "--grace", "2s")
			if r.code != 0 || !strings.Contains(r.stdout, "stopped through Docker: gone") || !strings.Contains(r.stdout, "port "+port+": free") || strings.Contains(r.stdout, "TERM") {
				t.Errorf("reclaim --foreign: %+v; want the container stopped through Docker, the port free, no signal", r)
			}
			time.Sleep(500 * time.Millisecond) // a restart policy would have started it again by now
			if containerUp(t, host, name) {
				t.Errorf("the container %s runs after the reclaim", name)
			}
		})
	}
}

// Without --foreign the container is named, with what would stop it.
func TestContainerNotForeignNamed(t *testing.T) {
	t.Parallel() // its own containers, ports and cgroup; the engine takes a grace to stop one
	host := engineHost(t)
	port := freePort(t, "tcp")
	name, _ := container(t, host, "-p", "127.0.0.1:"+port+":80")
	listening(t, port)
	r := tetherAt(t, host, "reclaim", "--port", port)
	if r.code != 1 || !strings.Contains(r.stdout, "container "+name) || !strings.Contains(r.stdout, "--foreign to stop it through its engine") || !containerUp(t, host, name) {
		t.Errorf("reclaim without --foreign: %+v; want 1, the container named and left running", r)
	}
}

// A host-network container holds the port itself: stopped through its
// engine too, and two containers on two ports in one reclaim.
func TestContainerHostNetworkAndTwoPorts(t *testing.T) {
	t.Parallel() // its own containers, ports and cgroup; the engine takes a grace to stop one
	host := engineHost(t)
	p1, p2 := freePort(t, "tcp"), freePort(t, "tcp")
	n1, _ := container(t, host, "-p", "127.0.0.1:"+p1+":80")
	n2, _ := containerRunning(t, host, []string{"--network", "host"}, "/bin/busybox", "httpd", "-f", "-p", "127.0.0.1:"+p2)
	listening(t, p1)
	listening(t, p2)
	r := tetherAt(t, host, "ps", "--port", p2)
	if !strings.Contains(r.stdout, "container "+n2) || strings.Contains(r.stdout, "port proxy") {
		t.Errorf("ps of the host-network holder: %+v; want the container named, no proxy", r)
	}
	r = tetherAt(t, host, "reclaim", "--port", p1, "--port", p2, "--foreign", "--grace", "2s")
	if r.code != 0 || containerUp(t, host, n1) || containerUp(t, host, n2) {
		t.Errorf("reclaim of two ports: %+v; want both containers stopped, exit 0", r)
	}
}

// Where the engine cannot be asked (its socket gone, or DOCKER_HOST a
// tcp:// address, which is never followed) nothing is signalled and the
// exit status is 1, with one line saying why.
func TestContainerEngineUnreachable(t *testing.T) {
	t.Parallel() // its own containers, ports and cgroup; the engine takes a grace to stop one
	host := engineHost(t)
	port := freePort(t, "tcp")
	name, id := container(t, host, "-p", "127.0.0.1:"+port+":80")
	listening(t, port)
	for _, bad := range []string{"unix://" + filepath.Join(t.TempDir(), "gone.sock"), "tcp://127.0.0.1:2375"} {
		// The dry run answers as the real run does: exit 1, nothing
		// would be signalled.
		dry := tetherAt(t, bad, "reclaim", "--port", port, "--foreign", "--dry-run")
		if dry.code != 1 || !strings.Contains(dry.stdout, "nothing would be signalled") || strings.Contains(dry.stdout, "would be freed") {
			t.Errorf("DOCKER_HOST=%s, --dry-run: %+v; want 1, nothing would be signalled", bad, dry)
		}
		r := tetherAt(t, bad, "reclaim", "--port", port, "--foreign", "--grace", "1s")
		if r.code != 1 || strings.Contains(r.stdout, "TERM") || !containerUp(t, host, name) || !strings.Contains(r.stdout, "nothing signalled") {
			t.Errorf("DOCKER_HOST=%s: %+v; want 1, nothing signalled, the container left running", bad, r)
		}
		// The proxy's container is found by its address, without the
		// engine: its id names it, and the command that stops it.
		if !strings.Contains(r.stdout, "docker stop "+id[:12]+" stops it") {
			t.Errorf("DOCKER_HOST=%s: %q; want docker stop %s named", bad, r.stdout, id[:12])
		}
		if bad[:3] == "tcp" && !strings.Contains(r.stdout, "tcp://127.0.0.1:2375") {
			t.Errorf("DOCKER_HOST=%s: %q; want the value named", bad, r.stdout)
		}
	}
}

// A holder a systemd unit runs (here, a cgroup made to look like one) is
// never signalled: it is named with the command that stops it, exit 1.
func TestUnitHolderNeverSignalled(t *testing.T) {
	t.Parallel() // its own containers, ports and cgroup; the engine takes a grace to stop one
	if os.Geteuid() != 0 {
		t.Skip("needs root: a cgroup made to look like a unit's")
	}
	mount := cgroup2Mount(t)
	if mount == "" {
		t.Skip("no cgroup2 mount here")
	}
	unit := "fake-tether-" + marker.NewRunID()[:8] + ".service"
	dir := filepath.Join(mount, "tether-test.slice", unit)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Skipf("cannot make a unit's cgroup here: %v", err)
	}
	p, port := startListener(t, nil)
	if err := os.WriteFile(filepath.Join(dir, "cgroup.procs"), []byte(strconv.Itoa(p.PID())), 0o644); err != nil {
		t.Skipf("cannot move a process into %s: %v", dir, err)
	}
	t.Cleanup(func() {
		_ = p.Stop()
		waitGone(t, p, "the unit's listener")
		_ = os.Remove(dir)
		_ = os.Remove(filepath.Dir(dir))
	})
	r := tether(t, nil, "reclaim", "--port", port, "--foreign", "--grace", "1s")
	if r.code != 1 || !strings.Contains(r.stdout, "unit "+unit) || !strings.Contains(r.stdout, "systemctl stop "+unit) || strings.Contains(r.stdout, "TERM") {
		t.Errorf("reclaim of a unit's port: %+v; want 1, the unit and systemctl stop named, nothing signalled", r)
	}
	if st, err := proc.Host().Stat(p.PID()); err != nil || st.Zombie() {
		t.Errorf("the unit's listener %d was ended", p.PID())
	}
	r = tether(t, nil, "run", "--port", port, "--foreign", "--", "true")
	if r.code != 125 || !strings.Contains(r.stderr, "systemctl stop "+unit) {
		t.Errorf("run --port --foreign: %+v; want 125 naming systemctl stop", r)
	}
}

// Podman, rootful: a published port is held by conmon, its port
// reservation, which is named by its container and never signalled;
// --foreign stops the container through Podman's API.
func TestContainerPodman(t *testing.T) {
	t.Parallel()
	host := os.Getenv("TETHER_TEST_PODMAN_HOST")
	if host == "" {
		t.Skip("no Podman: set TETHER_TEST_PODMAN_HOST to its API's unix:// socket (CI starts one)")
	}
	podman := func(args ...string) string {
		out, err := exec.Command("podman", append([]string{"--remote", "--url", host}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("podman %s: %v: %s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	port := freePort(t, "tcp")
	name := "tether-test-" + marker.NewRunID()[:10]
	t.Cleanup(func() { _ = exec.Command("podman", "--remote", "--url", host, "rm", "-f", name).Run() })
	// Its defaults exceed some machines' hard limits.
	podman("run", "-d", "--name", name, "--ulimit", "nofile=1024:1024", "--ulimit", "nproc=1024:1024",
		"-p", "127.0.0.1:"+port+":80", "localhost/"+ciImage, "/bin/busybox", "httpd", "-f", "-p", "80")
	listening(t, port)
	r := tetherAt(t, host, "ps", "--port", port)
	if !strings.Contains(r.stdout, "container "+name) || !strings.Contains(r.stdout, "via Podman") {
		t.Errorf("ps --port: %+v; want the container named, via Podman", r)
	}
	r = tetherAt(t, host, "reclaim", "--port", port, "--foreign", "--grace", "2s")
	if r.code != 0 || !strings.Contains(r.stdout, "stopped through Podman: gone") || strings.Contains(r.stdout, "TERM") {
		t.Errorf("reclaim --foreign: %+v; want the container stopped through Podman", r)
	}
	if state := podman("inspect", "-f", "{{.State.Running}}", name); state != "false" {
		t.Errorf("the container runs after the reclaim: %s", state)
	}
}
