package engines

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func fixture(t testing.TB, parts ...string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(append([]string{"testdata"}, parts...)...))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func fixtures(t testing.TB, dir string) map[string][]byte {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", dir, "*"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixtures in testdata/%s: %v", dir, err)
	}
	out := map[string][]byte{}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(p)] = data
	}
	return out
}

// The ids of the fixtures: SHA-256 of "a" and "b".
const (
	idA = "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb"
	idB = "3e23e8160039594a33894f6564e1b1348bbd7a0088d42c4acb73eeaed59c009d"
)

func TestParseCgroup(t *testing.T) {
	docker := &Manager{Kind: Container, Engine: Docker, ID: idA}
	podman := &Manager{Kind: Container, Engine: Podman, ID: idA}
	kube := &Manager{Kind: Container, Engine: Kubernetes, ID: idA}
	containerd := &Manager{Kind: Container, Engine: Containerd, ID: idA}
	nginx := &Manager{Kind: Unit, Name: "nginx.service"}
	tests := map[string]*Manager{
		"docker-cgroupfs-hybrid":      {Kind: Container, Engine: Docker, ID: "25ca90ac4453fcba261811d9aefe2f5dc49a653cc0fc6cd1d3008360d6c349ab"},
		"docker-systemd-v2":           docker,
		"docker-v1":                   docker,
		"docker-hybrid-shim-unit":     docker, // the container, not the shim's unit
		"docker-in-docker":            docker, // the outermost: the host's engine knows it
		"docker-rootless":             {Kind: Container, Engine: Docker, ID: idA, Rootless: true, UID: 1000},
		"podman-systemd":              podman,
		"podman-conmon":               {Kind: Container, Engine: Podman, ID: idA, Proxy: true},
		"podman-cgroupfs":             podman,
		"podman-rootless":             {Kind: Container, Engine: Podman, ID: idA, Rootless: true, UID: 1000},
		"nerdctl-systemd":             containerd,
		"containerd-default":          containerd,
		"kubepods-cgroupfs":           kube,
		"kubepods-systemd-containerd": kube,
		"kubepods-systemd-docker":     kube, // the kubelet's, whatever the runtime
		"kubepods-pod-only":           nil,
		"crio":                        kube,
		"containerd-k8s-namespace":    kube,
		"unit-nginx":                  nginx,
		"unit-nginx-v1":               nginx, // name=systemd, on a v1-only machine
		"unit-v1-controllers-only":    nil,   // other controllers follow no naming rule
		"unit-getty":                  {Kind: Unit, Name: "getty@tty1.service"},
		"unit-delegated-subgroup":     {Kind: Unit, Name: "buildkitd.service"},
		"unit-root-slice":             {Kind: Unit, Name: "odd.service"},
		"unit-escaped":                {Kind: Unit, Name: `openvpn-client@home\x2dvpn.service`},
		"user-unit":                   {Kind: Unit, Name: "vite.service", User: true, UID: 1000},
		"user-unit-session-slice":     {Kind: Unit, Name: "dbus.service", User: true, UID: 1000},
		"user-manager":                nil, // the user's manager itself: init.scope
		"user-app-scope":              nil,
		"session":                     nil, // a login is not a service
		"init-scope":                  nil,
		"root":                        nil,
		"this-machine":                nil,
		"tether-run":                  nil, // tether's own contained run
		"tether-run-in-unit":          nil,
		"tether-run-v1":               nil,
		"service-not-in-slice":        nil,
		"short-id":                    nil,
		"upper-id":                    nil,
		"relative":                    nil,
		"garbage":                     nil,
		"empty":                       nil,
	}
	all := fixtures(t, "cgroup")
	for name := range all {
		if _, ok := tests[name]; !ok {
			t.Errorf("fixture cgroup/%s has no expectation", name)
		}
	}
	for name, want := range tests {
		got := ParseCgroup(fixture(t, "cgroup", name))
		if !sameManager(got, want) {
			t.Errorf("ParseCgroup(%s) = %s, want %s", name, dump(got), dump(want))
		}
	}
}

func TestParseCgroupLine(t *testing.T) {
	tests := []struct {
		line string
		want *Manager
	}{
		{"0::/system.slice/docker-" + idA + ".scope", &Manager{Kind: Container, Engine: Docker, ID: idA}},
		{"5:devices:/docker/" + idB, &Manager{Kind: Container, Engine: Docker, ID: idB}},
		{"1:name=systemd:/system.slice/redis-server.service", &Manager{Kind: Unit, Name: "redis-server.service"}},
		{"4:memory:/system.slice/redis-server.service", nil},
		{"0::/system.slice/docker.service", &Manager{Kind: Unit, Name: "docker.service"}}, // dockerd, and its docker-proxy
		{"0::/user.slice/user-1000.slice/user@1000.service", nil},
		{"0::/user.slice/user-4294967295.slice/user@4294967295.service/app.slice/x.service", &Manager{Kind: Unit, Name: "x.service", User: true, UID: 4294967295}},
		{"0::/user.slice/user-1.slice/user@99999999999.service/app.slice/x.service", &Manager{Kind: Unit, Name: "x.service"}},
		{"0::/system.slice/.service", nil},
		{"0::/system.slice/a b.service", nil},
		{"x::/system.slice/nginx.service", nil},
		{"0:/system.slice/nginx.service", nil},
		{"", nil},
	}
	for _, tt := range tests {
		if got := ParseCgroupLine(tt.line); !sameManager(got, tt.want) {
			t.Errorf("ParseCgroupLine(%q) = %s, want %s", tt.line, dump(got), dump(tt.want))
		}
	}
}

func sameManager(a, b *Manager) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

func dump(m *Manager) string {
	if m == nil {
		return "nil"
	}
	return strings.Join([]string{string(m.Kind), m.Engine, m.ID, m.Name, "user=" + strconv.FormatBool(m.User),
		"uid=" + strconv.Itoa(m.UID), "rootless=" + strconv.FormatBool(m.Rootless), "proxy=" + strconv.FormatBool(m.Proxy)}, " ")
}

// cgroupLine writes a v2 line that names m as the forms of ParseCgroup do.
func cgroupLine(m *Manager) string {
	if m.Kind == Unit {
		if m.User {
			uid := strconv.Itoa(m.UID)
			return "0::/user.slice/user-" + uid + ".slice/user@" + uid + ".service/app.slice/" + m.Name
		}
		return "0::/system.slice/" + m.Name
	}
	slice := "/machine.slice/"
	if m.Rootless {
		uid := strconv.Itoa(m.UID)
		slice = "/user.slice/user-" + uid + ".slice/user@" + uid + ".service/user.slice/"
	}
	switch {
	case m.Engine == Kubernetes:
		return "0::/kubepods/burstable/pod1/" + m.ID
	case m.Engine == Podman && m.Proxy:
		return "0::" + slice + "libpod-conmon-" + m.ID + ".scope"
	case m.Engine == Podman:
		return "0::" + slice + "libpod-" + m.ID + ".scope/container"
	case m.Engine == Containerd:
		return "0::/system.slice/nerdctl-" + m.ID + ".scope"
	}
	if m.Rootless {
		return "0::" + slice + "docker-" + m.ID + ".scope"
	}
	return "0::/system.slice/docker-" + m.ID + ".scope"
}

func FuzzParseCgroup(f *testing.F) {
	for _, data := range fixtures(f, "cgroup") {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m := ParseCgroup(data)
		ParseCgroupLine(string(data))
		if m == nil {
			return
		}
		// What was accepted was read from the input...
		switch m.Kind {
		case Container:
			if !isID(m.ID) || !strings.Contains(string(data), m.ID) {
				t.Fatalf("container id %q not read from %q", m.ID, data)
			}
		case Unit:
			if !strings.Contains(string(data), "/"+m.Name) || !strings.HasSuffix(m.Name, ".service") {
				t.Fatalf("unit %q not read from %q", m.Name, data)
			}
		default:
			t.Fatalf("kind %q", m.Kind)
		}
		if m.Socket != "" || m.Unreachable != nil || m.Image != "" {
			t.Fatalf("a parser filled in what only an engine says: %s", dump(m))
		}
		// ...and reads back the same from a line that names it.
		line := cgroupLine(m)
		if back := ParseCgroupLine(line); !sameManager(back, m) {
			t.Fatalf("%q: %s; its line %q: %s", data, dump(m), line, dump(back))
		}
	})
}
