package engines

import (
	"errors"
	"slices"
	"testing"
)

func TestEndpoints(t *testing.T) {
	env := func(kv ...string) where {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return where{getenv: func(k string) string { return m[k] }, dockerSocket: "/var/run/docker.sock", podmanSocket: "/run/podman/podman.sock"}
	}
	paths := func(eps []endpoint) []string {
		var out []string
		for _, ep := range eps {
			if ep.err != nil {
				out = append(out, "error: "+ep.err.Error())
			} else {
				out = append(out, ep.engine+" "+ep.path)
			}
		}
		return out
	}
	tests := []struct {
		engine string
		w      where
		want   []string
	}{
		{Docker, env(), []string{"Docker /var/run/docker.sock", "Podman /run/podman/podman.sock"}},
		{Podman, env("XDG_RUNTIME_DIR", "/run/user/1000"),
			[]string{"Podman /run/podman/podman.sock", "Podman /run/user/1000/podman/podman.sock", "Docker /var/run/docker.sock"}},
		{Docker, env("DOCKER_HOST", "unix:///run/user/1000/docker.sock"), []string{"Docker /run/user/1000/docker.sock", "Podman /run/podman/podman.sock"}},
		// Podman's socket where Docker's is named: asked once.
		{Podman, env("DOCKER_HOST", "unix:///run/podman/podman.sock"), []string{"Podman /run/podman/podman.sock"}},
		{Docker, env("DOCKER_HOST", "tcp://10.0.0.1:2375"),
			[]string{`error: DOCKER_HOST "tcp://10.0.0.1:2375": only local unix sockets (unix:///path) are asked`, "Podman /run/podman/podman.sock"}},
		{Docker, env("DOCKER_HOST", "ssh://me@box"),
			[]string{`error: DOCKER_HOST "ssh://me@box": only local unix sockets (unix:///path) are asked`, "Podman /run/podman/podman.sock"}},
		{Docker, env("DOCKER_HOST", "unix://run/docker.sock"),
			[]string{`error: DOCKER_HOST "unix://run/docker.sock": the socket's path is not absolute`, "Podman /run/podman/podman.sock"}},
		{Docker, env("XDG_RUNTIME_DIR", "relative"), []string{"Docker /var/run/docker.sock", "Podman /run/podman/podman.sock"}},
	}
	for _, tt := range tests {
		if got := paths(endpointsFor(tt.engine, tt.w, userRuntime{uid: -1})); !slices.Equal(got, tt.want) {
			t.Errorf("endpointsFor(%s) = %q, want %q", tt.engine, got, tt.want)
		}
	}
	if ep := dockerEndpoint(env("DOCKER_HOST", "npipe:////./pipe/docker_engine")); !errors.Is(ep.err, ErrNotLocal) {
		t.Errorf("npipe DOCKER_HOST: %v", ep.err)
	}
}

func TestMatchDockerProxy(t *testing.T) {
	entry := func(id, name, ip string, ports ...[4]any) listed {
		l := listed{ID: id, Names: []string{"/" + name}}
		for _, p := range ports {
			l.Ports = append(l.Ports, struct {
				IP          string
				PrivatePort int
				PublicPort  int
				Type        string
			}{p[0].(string), p[1].(int), p[2].(int), p[3].(string)})
		}
		l.NetworkSettings.Networks = map[string]struct{ IPAddress, GlobalIPv6Address string }{"bridge": {IPAddress: ip}}
		return l
	}
	list := []listed{
		entry(idA, "a", "172.17.0.2", [4]any{"127.0.0.1", 80, 8080, "tcp"}),
		entry(idB, "b", "172.17.0.3", [4]any{"127.0.0.2", 80, 8080, "tcp"}, [4]any{"0.0.0.0", 53, 5353, "udp"}),
	}
	tests := []struct {
		p      Proxy
		id     string
		errSay string
	}{
		{Proxy{Proto: "tcp", HostIP: "127.0.0.1", HostPort: 8080, ContainerIP: "172.17.0.2", ContainerPort: 80}, idA, ""},
		{Proxy{Proto: "tcp", HostIP: "127.0.0.2", HostPort: 8080, ContainerIP: "172.17.0.3", ContainerPort: 80}, idB, ""},
		{Proxy{Proto: "udp", HostIP: "::", HostPort: 5353, ContainerIP: "172.17.0.3", ContainerPort: 53}, idB, ""},
		{Proxy{Proto: "udp", HostPort: 5353, ContainerIP: "172.17.0.3", ContainerPort: 53}, idB, ""},
		// The protocol counts.
		{Proxy{Proto: "tcp", HostPort: 5353, ContainerIP: "172.17.0.9", ContainerPort: 53}, "", "no running container publishes tcp *:5353 (to 172.17.0.9:53)"},
		// Not listed as published, but the container's address: taken last.
		{Proxy{Proto: "tcp", HostIP: "127.0.0.1", HostPort: 9999, ContainerIP: "172.17.0.2", ContainerPort: 80}, idA, ""},
	}
	for _, tt := range tests {
		got, err := matchDockerProxy(list, &tt.p)
		if tt.errSay != "" {
			if err == nil || err.Error() != tt.errSay {
				t.Errorf("matchDockerProxy(%+v) = %s, %v; want %q", tt.p, got.ID, err, tt.errSay)
			}
			continue
		}
		if err != nil || got.ID != tt.id {
			t.Errorf("matchDockerProxy(%+v) = %s, %v; want %s", tt.p, got.ID, err, tt.id)
		}
	}
	// Two containers publishing the same port on every address (only
	// one could run at a time, but a list is a snapshot): ambiguous,
	// unless the container's address decides.
	twice := []listed{
		entry(idA, "a", "172.17.0.2", [4]any{"0.0.0.0", 80, 8080, "tcp"}),
		entry(idB, "b", "172.17.0.3", [4]any{"0.0.0.0", 80, 8080, "tcp"}),
	}
	if got, err := matchDockerProxy(twice, &Proxy{Proto: "tcp", HostPort: 8080, ContainerIP: "172.17.0.3", ContainerPort: 80}); err != nil || got.ID != idB {
		t.Errorf("by address: %s, %v", got.ID, err)
	}
	if _, err := matchDockerProxy(twice, &Proxy{Proto: "tcp", HostPort: 8080, ContainerIP: "172.17.0.9", ContainerPort: 80}); err == nil || err.Error() != "2 running containers publish tcp *:8080 (to 172.17.0.9:80): a, b" {
		t.Errorf("ambiguous: %v", err)
	}
}
