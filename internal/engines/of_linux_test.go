package engines

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/proctest"
)

// isolated is where no engine of this machine is found: the defaults
// point into an empty directory, and the environment is env's alone.
func isolated(t *testing.T, env map[string]string) where {
	dir := t.TempDir()
	return where{
		getenv:       func(k string) string { return env[k] },
		dockerSocket: filepath.Join(dir, "docker.sock"),
		podmanSocket: filepath.Join(dir, "podman.sock"),
	}
}

// proxyHelper starts the test binary under a proxy's name, with args:
// its /proc/PID/cmdline then reads as that proxy's.
func proxyHelper(t *testing.T, program string, args ...string) int {
	t.Helper()
	p := proctest.Start(t, proctest.Wait, proctest.Spec{Path: proctest.Copy(t, program), Args: args})
	waitCmdline(t, p.PID(), program)
	return p.PID()
}

// waitCmdline waits until pid has exec'd program.
func waitCmdline(t *testing.T, pid int, program string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		argv, _ := proc.Host().Cmdline(pid)
		if len(argv) > 0 && filepath.Base(argv[0]) == program {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d never ran %s: %q", pid, program, argv)
		}
	}
}

func TestOfDockerProxy(t *testing.T) {
	e := newFakeEngine(t, "",
		&fakeContainer{ID: idA, Name: "db", Image: "postgres:16", Pid: 100, IP: "172.18.0.3",
			Labels: map[string]string{composeProject: "app", composeService: "db"},
			Ports:  []fakePort{{IP: "127.0.0.1", PrivatePort: 5432, PublicPort: 15432, Type: "tcp"}}},
		&fakeContainer{ID: idB, Name: "web", Image: "bb:1", Pid: 101, IP: "172.18.0.4",
			Ports: []fakePort{{IP: "0.0.0.0", PrivatePort: 80, PublicPort: 18080, Type: "tcp"}, {IP: "::", PrivatePort: 80, PublicPort: 18080, Type: "tcp"}}},
	)
	w := isolated(t, map[string]string{"DOCKER_HOST": "unix://" + e.path})

	pid := proxyHelper(t, DockerProxy, "-proto", "tcp", "-host-ip", "127.0.0.1", "-host-port", "15432", "-container-ip", "172.18.0.3", "-container-port", "5432")
	m := find(proc.Host(), pid, w)
	want := Manager{Kind: Container, Engine: Docker, ID: idA, Name: "db", Image: "postgres:16", Project: "app", Service: "db",
		Proxy: true, Helper: DockerProxy, Socket: e.path, api: "1.41"}
	if m == nil || *m != want {
		t.Fatalf("Of(docker-proxy) = %+v, want %+v", m, want)
	}

	// The IPv6 proxy of a port published on every address.
	pid = proxyHelper(t, DockerProxy, "-proto", "tcp", "-host-ip", "::", "-host-port", "18080", "-container-ip", "172.18.0.4", "-container-port", "80")
	if m := find(proc.Host(), pid, w); m == nil || m.ID != idB || m.Name != "web" || !m.Proxy || m.Unreachable != nil {
		t.Errorf("Of(IPv6 docker-proxy) = %+v", m)
	}

	// A proxy no container publishes the port of: the engine is named,
	// the container is not.
	pid = proxyHelper(t, DockerProxy, "-proto", "tcp", "-host-ip", "127.0.0.1", "-host-port", "19999", "-container-ip", "172.18.0.9", "-container-port", "80")
	m = find(proc.Host(), pid, w)
	if m == nil || !m.Proxy || m.Engine != Docker || m.ID != "" || m.Socket != "" ||
		m.Unreachable == nil || !strings.Contains(m.Unreachable.Error(), "no running container publishes tcp 127.0.0.1:19999 (to 172.18.0.9:80)") {
		t.Errorf("Of(docker-proxy of no container) = %+v", m)
	}
	if m != nil && (m.Name != "" || m.ID != "") {
		t.Errorf("an unnamed container named %q, id %q", m.Name, m.ID)
	}
}

func TestOfConmon(t *testing.T) {
	e := newFakeEngine(t, "", &fakeContainer{ID: idB, Name: "cache", Image: "docker.io/library/redis:7", Pid: 100})
	w := isolated(t, nil)
	w.podmanSocket = e.path
	pid := proxyHelper(t, Conmon, "--api-version", "1", "-c", idB, "-u", idB, "-r", "/usr/bin/runc", "-n", "cache", "--exit-dir", "/run/libpod/exits")
	m := find(proc.Host(), pid, w)
	want := Manager{Kind: Container, Engine: Podman, ID: idB, Name: "cache", Image: "docker.io/library/redis:7", Proxy: true, Helper: Conmon, Socket: e.path, api: "1.41"}
	if m == nil || *m != want {
		t.Fatalf("Of(conmon) = %+v, want %+v", m, want)
	}
	if got := e.Calls(); !slices.Equal(got, []string{"GET /_ping", "GET /v1.41/containers/" + idB + "/json"}) {
		t.Errorf("calls %q", got)
	}
}

func TestOfRootlessPort(t *testing.T) {
	p, port := proctest.StartLine(t, proctest.Listen, proctest.Spec{Path: proctest.Copy(t, RootlessPort)})
	n, err := strconv.Atoi(port)
	if err != nil {
		t.Fatalf("port %q: %v", port, err)
	}
	e := newFakeEngine(t, "",
		&fakeContainer{ID: idA, Name: "other", Image: "bb:1", Pid: 100, Ports: []fakePort{{IP: "127.0.0.1", PrivatePort: 80, PublicPort: n + 1, Type: "tcp"}}},
		&fakeContainer{ID: idB, Name: "mine", Image: "bb:1", Pid: 101, Ports: []fakePort{{IP: "127.0.0.1", PrivatePort: 80, PublicPort: n, Type: "tcp"}}},
	)
	// $XDG_RUNTIME_DIR/podman/podman.sock is the fake's.
	xdg := t.TempDir()
	if err := os.Mkdir(filepath.Join(xdg, "podman"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(e.path, filepath.Join(xdg, "podman", "podman.sock")); err != nil {
		t.Fatal(err)
	}
	w := isolated(t, map[string]string{"XDG_RUNTIME_DIR": xdg})
	m := find(proc.Host(), p.PID(), w)
	if m == nil || m.Engine != Podman || !m.Proxy || m.ID != idB || m.Name != "mine" || m.Socket != filepath.Join(xdg, "podman", "podman.sock") {
		t.Fatalf("Of(rootlessport on %d) = %+v", n, m)
	}
}

// A proxy is believed only when it runs as the user whose engine is
// asked: anyone may call a program docker-proxy.
func TestOfProxyOfAnotherUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root, to run a helper as another user")
	}
	e := newFakeEngine(t, "", &fakeContainer{ID: idA, Name: "db", Image: "bb:1", Pid: 100, IP: "172.18.0.3",
		Ports: []fakePort{{IP: "127.0.0.1", PrivatePort: 80, PublicPort: 18080, Type: "tcp"}}})
	w := isolated(t, map[string]string{"DOCKER_HOST": "unix://" + e.path})
	path := proctest.Copy(t, DockerProxy)
	p := proctest.Start(t, proctest.Wait, proctest.Spec{Path: path,
		Args:        []string{"-host-port", "18080", "-container-ip", "172.18.0.3", "-container-port", "80", "-host-ip", "127.0.0.1"},
		SysProcAttr: &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}})
	waitCmdline(t, p.PID(), DockerProxy)
	m := find(proc.Host(), p.PID(), w)
	if m == nil || m.Socket != "" || !errors.Is(m.Unreachable, ErrUntrusted) ||
		!strings.Contains(m.Unreachable.Error(), "runs as uid 65534") {
		t.Errorf("Of(another user's docker-proxy) = %+v", m)
	}
	if calls := e.Calls(); len(calls) != 0 {
		t.Errorf("calls to an engine not the proxy's user's: %q", calls)
	}
}

// cgroupRoot makes a group of the test's own under the cgroup v2
// hierarchy, removed when the test ends, or skips the test.
func cgroupRoot(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root, to make cgroups")
	}
	mounts, err := proc.Host().Mounts()
	if err != nil {
		t.Skipf("no mount table: %v", err)
	}
	mnt := ""
	for _, m := range mounts {
		if m.FSType == "cgroup2" {
			mnt = m.Point
			break
		}
	}
	if mnt == "" {
		t.Skip("no cgroup v2 hierarchy mounted")
	}
	var b [4]byte
	_, _ = rand.Read(b[:])
	root := filepath.Join(mnt, "engines-test-"+hex.EncodeToString(b[:]))
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Skipf("cannot make a cgroup: %v", err)
	}
	t.Cleanup(func() { removeGroups(t, root) })
	return root
}

// removeGroups removes a tree of cgroups, deepest first, once the
// processes the test put in them are gone.
func removeGroups(t *testing.T, root string) {
	var dirs []string
	_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			dirs = append(dirs, p)
		}
		return nil
	})
	slices.Reverse(dirs)
	for _, d := range dirs {
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			err := os.Remove(d)
			if err == nil || os.IsNotExist(err) {
				break
			}
			if time.Now().After(deadline) {
				t.Errorf("remove cgroup %s: %v", d, err)
				break
			}
		}
	}
}

// inGroup starts a helper and moves it into the cgroup at dir (made
// under root), as an engine or systemd puts a process in its place.
func inGroup(t *testing.T, root, dir string) int {
	t.Helper()
	path := filepath.Join(root, dir)
	if err := os.MkdirAll(path, 0o755); err != nil {
		t.Fatal(err)
	}
	p := proctest.Start(t, proctest.Wait, proctest.Spec{})
	if err := os.WriteFile(filepath.Join(path, "cgroup.procs"), []byte(strconv.Itoa(p.PID())), 0); err != nil {
		t.Fatalf("move %d into %s: %v", p.PID(), path, err)
	}
	return p.PID()
}

func TestOfCgroup(t *testing.T) {
	root := cgroupRoot(t)
	scope := "system.slice/docker-" + idA + ".scope"
	first := inGroup(t, root, scope)
	second := inGroup(t, root, scope)
	c := &fakeContainer{ID: idA, Name: "tb1", Image: "bb:1", Pid: first, Labels: map[string]string{composeProject: "app"}}
	e := newFakeEngine(t, "", c)
	w := isolated(t, map[string]string{"DOCKER_HOST": "unix://" + e.path})

	want := Manager{Kind: Container, Engine: Docker, ID: idA, Name: "tb1", Image: "bb:1", Project: "app", Socket: e.path, api: "1.41"}
	for _, pid := range []int{first, second} {
		if m := find(proc.Host(), pid, w); m == nil || *m != want {
			t.Errorf("Of(%d in %s) = %+v, want %+v", pid, scope, m, want)
		}
	}

	// A group named after the container, elsewhere: the engine says its
	// container's process is not there, and the name is not believed.
	spoof := inGroup(t, root, "user.slice/user-1000.slice/user@1000.service/app.slice/docker-"+idA+".scope")
	m := find(proc.Host(), spoof, w)
	if m == nil || m.Socket != "" || m.Name != "" || !errors.Is(m.Unreachable, ErrUntrusted) ||
		!strings.Contains(m.Unreachable.Error(), fmt.Sprintf("container %s's own process %d is in /", ShortID(idA), first)) {
		t.Errorf("Of(process in a group named like the container's) = %+v", m)
	}

	// The engine no longer runs it.
	e.mu.Lock()
	c.Pid = 0
	e.mu.Unlock()
	if m := find(proc.Host(), second, w); m == nil || !errors.Is(m.Unreachable, ErrUntrusted) || !strings.Contains(m.Unreachable.Error(), "does not run") {
		t.Errorf("Of(process of a stopped container) = %+v", m)
	}
}

// Only a container's engine is asked: a unit, a Kubernetes pod's
// container, tether's own run, a process of nobody's cost no call.
func TestOfAsksOnlyForContainers(t *testing.T) {
	root := cgroupRoot(t)
	e := newFakeEngine(t, "")
	w := isolated(t, map[string]string{"DOCKER_HOST": "unix://" + e.path})
	var token [16]byte
	_, _ = rand.Read(token[:])
	tests := []struct {
		dir  string
		want *Manager
	}{
		{"system.slice/fake-nginx.service", &Manager{Kind: Unit, Name: "fake-nginx.service"}},
		{"user.slice/user-1000.slice/user@1000.service/app.slice/fake-vite.service", &Manager{Kind: Unit, Name: "fake-vite.service", User: true, UID: 1000}},
		{"user.slice/user-1000.slice/session-7.scope", nil},
		{"kubepods/besteffort/pod1/" + idB, &Manager{Kind: Container, Engine: Kubernetes, ID: idB}},
		{"system.slice/nerdctl-" + idB + ".scope", &Manager{Kind: Container, Engine: Containerd, ID: idB}},
		{"user.slice/tether-" + hex.EncodeToString(token[:]), nil},
	}
	for _, tt := range tests {
		pid := inGroup(t, root, tt.dir)
		m := find(proc.Host(), pid, w)
		if tt.want != nil && tt.want.Kind == Container {
			if m == nil || !errors.Is(m.Unreachable, ErrNotAsked) {
				t.Errorf("Of(%s) = %+v, want ErrNotAsked", tt.dir, m)
				continue
			}
			m.Unreachable = nil
		}
		if !sameManager(m, tt.want) {
			t.Errorf("Of(process in %s) = %s, want %s", tt.dir, dump(m), dump(tt.want))
		}
	}
	// A process where tether's test runs.
	plain := proctest.Start(t, proctest.Wait, proctest.Spec{}).PID()
	own, _ := os.ReadFile("/proc/self/cgroup")
	if m, want := find(proc.Host(), plain, w), ParseCgroup(own); !sameManager(m, want) && (want == nil || want.Kind != Container) {
		t.Errorf("Of(a plain process) = %s, want %s", dump(m), dump(want))
	}
	if m := find(proc.Host(), 0, w); m != nil {
		t.Errorf("Of(0) = %+v", m)
	}
	if calls := e.Calls(); len(calls) != 0 {
		t.Errorf("the engine was asked %q", calls)
	}
}

func TestOfUnreachable(t *testing.T) {
	t.Parallel() // a hanging engine is waited out for 5 s
	root := cgroupRoot(t)
	pid := inGroup(t, root, "system.slice/docker-"+idA+".scope")

	// DOCKER_HOST elsewhere: not followed, and said so.
	w := isolated(t, map[string]string{"DOCKER_HOST": "tcp://10.0.0.1:2375"})
	m := find(proc.Host(), pid, w)
	if m == nil || m.ID != idA || m.Socket != "" || !errors.Is(m.Unreachable, ErrNotLocal) ||
		!strings.Contains(m.Unreachable.Error(), `DOCKER_HOST "tcp://10.0.0.1:2375": only local unix sockets`) {
		t.Errorf("Of with DOCKER_HOST=tcp://... = %+v", m)
	}
	if m != nil && (m.Engine != Docker || m.ID != idA) {
		t.Errorf("Of with DOCKER_HOST=tcp://...: engine %q, id %q", m.Engine, m.ID)
	}
	if m != nil && strings.Contains(m.Unreachable.Error(), "\n") {
		t.Errorf("Unreachable on more than one line: %q", m.Unreachable)
	}

	// An engine that never answers: one call's limit, then the reason.
	e := newFakeEngine(t, "hang")
	w = isolated(t, map[string]string{"DOCKER_HOST": "unix://" + e.path})
	start := time.Now()
	m = find(proc.Host(), pid, w)
	took := time.Since(start)
	var ee *Error
	if m == nil || !errors.As(m.Unreachable, &ee) || ee.Socket != e.path || ee.Op != "GET /_ping" || !strings.Contains(ee.Error(), "no answer within 5s") {
		t.Errorf("Of with a hanging engine = %+v", m)
	}
	if took > 7*time.Second {
		t.Errorf("Of with a hanging engine took %v", took)
	}

	// An engine that answers garbage.
	e = newFakeEngine(t, "garbage")
	w = isolated(t, map[string]string{"DOCKER_HOST": "unix://" + e.path})
	if m := find(proc.Host(), pid, w); m == nil || !errors.As(m.Unreachable, &ee) || ee.Op != "GET /version" || !strings.Contains(ee.Error(), "not the API's answer") {
		t.Errorf("Of with a garbage engine = %+v", m)
	}

	// An engine that knows no such container; then Podman's, which does
	// not answer at all (no socket).
	e = newFakeEngine(t, "")
	w = isolated(t, map[string]string{"DOCKER_HOST": "unix://" + e.path})
	if m := find(proc.Host(), pid, w); m == nil || !errors.Is(m.Unreachable, ErrGone) ||
		!strings.Contains(m.Unreachable.Error(), "engine at "+e.path+": container ca978112ca1b: no such container; socket "+w.podmanSocket+": ") {
		t.Errorf("Of with an engine that does not know the container = %+v", m)
	}
}

// A listener of another user's at a socket of root's is not an engine
// this process talks to: the kernel says who listens.
func TestPeerOfAnotherUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root, to run a helper as another user")
	}
	dir := shortTempWorld(t)
	path := filepath.Join(dir, "engine.sock")
	p, line := proctest.StartLine(t, modeListenUnix, proctest.Spec{Path: proctest.Copy(t, "engine"), Env: []string{"ENGINES_SOCKET=" + path},
		SysProcAttr: &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}})
	if line != "listening" {
		t.Fatalf("helper %d: %q", p.PID(), line)
	}
	// The file passes for root's; the listener is still nobody's.
	if err := os.Chown(path, 0, 0); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	err := Stop(&Manager{Kind: Container, Engine: Docker, ID: idA, Socket: path}, time.Second)
	if !errors.Is(err, ErrUntrusted) || !strings.Contains(err.Error(), "runs as uid 65534") {
		t.Errorf("Stop through another user's listener = %v", err)
	}
}

func shortTempWorld(t *testing.T) string {
	t.Helper()
	dir := shortTemp(t)
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	return dir
}

var modeListenUnix = proctest.Register("engines-listen-unix", func() {
	ln, err := net.Listen("unix", os.Getenv("ENGINES_SOCKET"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	defer ln.Close()
	fmt.Println("listening")
	_, _ = os.Stdin.Read(make([]byte, 1))
})

// A running engine of this machine, when one answers: each running
// container's first process, and each docker-proxy, is found as the
// engine itself names it. Nothing is started, pulled or stopped.
func TestRealEngine(t *testing.T) {
	ep := dockerEndpoint(host)
	if ep.err != nil {
		t.Skipf("no local Docker: %v", ep.err)
	}
	c, err := ask(ep, -1)
	if err != nil {
		t.Skipf("no Docker engine answers at %s: %v", ep.path, err)
	}
	list, err := c.list()
	if err != nil {
		t.Fatalf("engine at %s answered /version but not the list: %v", ep.path, err)
	}
	if len(list) == 0 {
		t.Skipf("Docker %s answers at %s, but no container runs there", c.api, ep.path)
	}
	// Containers come and go while this runs (other tests start and
	// stop theirs): a mismatch counts only if the engine still says
	// the same afterwards.
	still := func(id string, pid int) bool {
		info, err := c.inspect(id)
		return err == nil && info.State.Running && info.State.Pid == pid
	}
	ids := map[string]bool{}
	checked := 0
	for _, l := range list {
		ids[l.ID] = true
		info, err := c.inspect(l.ID)
		if errors.Is(err, ErrGone) || err == nil && (!info.State.Running || info.State.Pid <= 0) {
			continue // stopped meanwhile
		}
		if err != nil {
			t.Fatal(err)
		}
		pid := info.State.Pid
		m := Of(pid)
		if m == nil || m.ID != l.ID || m.Name != strings.TrimPrefix(l.Names[0], "/") || m.Image != info.Config.Image || m.Socket != ep.path {
			if still(l.ID, pid) {
				t.Errorf("Of(%d, the first process of %s) = %+v", pid, l.Names, m)
			}
			continue
		}
		checked++
		t.Logf("process %d: %+v", pid, m)
	}
	pids, _ := proc.Host().PIDs()
	for _, pid := range pids {
		argv, _ := proc.Host().Cmdline(pid)
		if len(argv) == 0 || filepath.Base(argv[0]) != DockerProxy {
			continue
		}
		m := Of(pid)
		if m == nil || !m.Proxy || !ids[m.ID] {
			p, _ := ParseProxy(argv)
			again, _ := c.list()
			if _, err := matchDockerProxy(again, p); err == nil {
				t.Errorf("Of(%d, %q) = %+v", pid, argv, m)
			}
			continue
		}
		checked++
		t.Logf("docker-proxy %d: %+v", pid, m)
	}
	if checked == 0 {
		t.Skipf("the containers running at %s stopped before they could be looked at", ep.path)
	}
}

// What Of costs for a holder that no engine runs: two reads of /proc,
// no call to any engine.
func BenchmarkOfPlain(b *testing.B) {
	pid := os.Getpid()
	for b.Loop() {
		if m := find(proc.Host(), pid, host); m != nil && m.Kind == Container {
			b.Skip("this test runs in a container")
		}
	}
}
