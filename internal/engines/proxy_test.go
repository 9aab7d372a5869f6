package engines

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

// argv splits a command line as /proc/PID/cmdline holds it.
func argv(data []byte) []string {
	var out []string
	for len(data) > 0 {
		word, rest, _ := bytes.Cut(data, []byte{0})
		out = append(out, string(word))
		data = rest
	}
	return out
}

func TestParseProxy(t *testing.T) {
	tests := map[string]*Proxy{
		"docker-proxy-20.10.args": {Program: DockerProxy, Engine: Docker, Proto: "tcp", HostIP: "127.0.0.1", HostPort: 18080, ContainerIP: "172.17.0.2", ContainerPort: 80},
		"docker-proxy-ipv6.args":  {Program: DockerProxy, Engine: Docker, Proto: "tcp", HostIP: "::", HostPort: 5432, ContainerIP: "172.18.0.3", ContainerPort: 5432},
		// Newer proxies have flags of their own; a boolean one is skipped.
		"docker-proxy-listen-fd.args": {Program: DockerProxy, Engine: Docker, Proto: "tcp", HostIP: "0.0.0.0", HostPort: 8080, ContainerIP: "172.17.0.2", ContainerPort: 80},
		"docker-proxy-equals.args":    {Program: DockerProxy, Engine: Docker, Proto: "udp", HostIP: "127.0.0.1", HostPort: 5353, ContainerIP: "172.17.0.4", ContainerPort: 53},
		// An unknown flag is skipped with its value.
		"docker-proxy-unknown-flag.args": {Program: DockerProxy, Engine: Docker, Proto: "tcp", HostPort: 8080, ContainerIP: "172.17.0.2", ContainerPort: 80},
		"docker-proxy-no-host-ip.args":   {Program: DockerProxy, Engine: Docker, Proto: "tcp", HostPort: 8080, ContainerIP: "172.17.0.2", ContainerPort: 80},
		"conmon-podman-4.args":           {Program: Conmon, Engine: Podman, ID: idA, Name: "tb1"},
		"conmon-cid-equals.args":         {Program: Conmon, Engine: Podman, ID: idA, Name: "db"},
		"rootlessport.args":              {Program: RootlessPort, Engine: Podman, Rootless: true},
		// Read from rootless Docker 20.10's rootlesskit and its slirp4netns.
		"rootlesskit-docker-20.10.args": {Program: RootlessKit, Engine: Docker, Rootless: true},
		"slirp4netns-rootlesskit.args":  {Program: Slirp4netns, Rootless: true},
		"rootlesskit-containerd.args":   {Program: RootlessKit, Engine: Containerd, Rootless: true},
		"rootlesskit-other.args":        {Program: RootlessKit, Rootless: true},
		// Podman's port handler names its container in its API socket.
		"slirp4netns-podman-4.args":     {Program: Slirp4netns, Engine: Podman, Rootless: true, ID: idA},
		"slirp4netns-api-equals.args":   {Program: Slirp4netns, Engine: Podman, Rootless: true, ID: idA},
		"slirp4netns-other-socket.args": {Program: Slirp4netns, Rootless: true},
		// Podman 5's pasta names the container's network namespace.
		"pasta-podman-5.args":     {Program: Pasta, Engine: Podman, Rootless: true, Netns: "/run/user/1000/netns/netns-2f0b5c8e-3e9c-4f0e-9d5a-6b1c2d3e4f50"},
		"pasta-netns-equals.args": {Program: Pasta, Engine: Podman, Rootless: true, Netns: "/run/user/1000/netns/netns-2f0b5c8e-3e9c-4f0e-9d5a-6b1c2d3e4f50"},
		"not-a-proxy.args":        nil,
		"empty.args":              nil,
	}
	bad := map[string]string{
		"docker-proxy-no-port.args":   "no -host-port",
		"docker-proxy-bad-ip.args":    `-container-ip "172.17.0.300": not an IP address`,
		"docker-proxy-bad-port.args":  `-host-port "0": not a port`,
		"docker-proxy-bad-proto.args": `-proto "icmp"`,
		"conmon-no-id.args":           "no -c (--cid) with a container id",
	}
	for name := range fixtures(t, "proxy") {
		_, good := tests[name]
		_, broken := bad[name]
		if !good && !broken {
			t.Errorf("fixture proxy/%s has no expectation", name)
		}
	}
	for name, want := range tests {
		got, err := ParseProxy(argv(fixture(t, "proxy", name)))
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("ParseProxy(%s) = %+v, %v; want %+v", name, got, err, want)
		}
	}
	for name, want := range bad {
		got, err := ParseProxy(argv(fixture(t, "proxy", name)))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseProxy(%s) = %v; want an error with %q", name, err, want)
			continue
		}
		// The program is still known: its engine is.
		if got == nil || got.Engine == "" || got.Program == "" {
			t.Errorf("ParseProxy(%s) = %+v with its error, want the program and engine", name, got)
		}
	}
}

func FuzzParseProxy(f *testing.F) {
	for _, data := range fixtures(f, "proxy") {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParseProxy(argv(data))
		if p == nil {
			if err != nil {
				t.Fatalf("an error without a proxy: %v", err)
			}
			return
		}
		if err != nil {
			return
		}
		if p.Program == DockerProxy && (p.HostPort < 1 || p.HostPort > 65535 || p.ContainerPort < 1 || p.ContainerPort > 65535 || p.ContainerIP == "") {
			t.Fatalf("accepted %+v", p)
		}
		if p.Program == Conmon && !isID(p.ID) {
			t.Fatalf("accepted conmon with id %q", p.ID)
		}
		back, err := ParseProxy(p.Args())
		if err != nil || !reflect.DeepEqual(back, p) {
			t.Fatalf("%q: %+v; its Args %q: %+v, %v", data, p, p.Args(), back, err)
		}
	})
}
