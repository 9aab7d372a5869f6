package engines

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// ErrNotLocal says that DOCKER_HOST names an engine that is not reached
// through a local unix socket (tcp://, ssh://, npipe://): such an engine
// may run on another machine, whose containers are not this machine's
// processes, and it is not asked.
var ErrNotLocal = errors.New("only local unix sockets (unix:///path) are asked")

// where says where engines listen: the environment (DOCKER_HOST,
// XDG_RUNTIME_DIR) and the sockets engines make when nothing says
// otherwise.
type where struct {
	getenv       func(string) string
	dockerSocket string
	podmanSocket string
}

// endpoint is an engine's API socket, or why there is none to ask.
type endpoint struct {
	engine string
	path   string
	err    error
}

// dockerEndpoint is Docker's socket: $DOCKER_HOST when it is unix://PATH,
// else the default. A DOCKER_HOST of another scheme is not followed, and
// the default is not asked in its stead: the user said the engine is
// elsewhere.
func dockerEndpoint(w where) endpoint {
	host := w.getenv("DOCKER_HOST")
	if host == "" {
		return endpoint{engine: Docker, path: w.dockerSocket}
	}
	p, ok := strings.CutPrefix(host, "unix://")
	if !ok {
		return endpoint{engine: Docker, err: fmt.Errorf("DOCKER_HOST %q: %w", host, ErrNotLocal)}
	}
	if !filepath.IsAbs(p) {
		return endpoint{engine: Docker, err: fmt.Errorf("DOCKER_HOST %q: the socket's path is not absolute", host)}
	}
	return endpoint{engine: Docker, path: filepath.Clean(p)}
}

// podmanEndpoints are Podman's sockets: the system's (rootful) and the
// user's own ($XDG_RUNTIME_DIR/podman/podman.sock), in that order.
func podmanEndpoints(w where) []endpoint {
	eps := []endpoint{{engine: Podman, path: w.podmanSocket}}
	if dir := w.getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(dir) {
		eps = append(eps, endpoint{engine: Podman, path: filepath.Join(dir, "podman", "podman.sock")})
	}
	return eps
}

// userRuntime is where a user's own (rootless) engines listen: the
// user's runtime directory, $XDG_RUNTIME_DIR. uid is -1 for none.
type userRuntime struct {
	uid int
	dir string
}

// endpointsFor lists the sockets to ask about a container of engine, its
// own engine's first, then the other's (Podman's socket is often linked
// at Docker's place, and answers Docker's API), each path once. For a
// process of a user's own engine (rt), that user's sockets are asked
// first: $XDG_RUNTIME_DIR/podman/podman.sock, $XDG_RUNTIME_DIR/docker.sock.
func endpointsFor(engine string, w where, rt userRuntime) []endpoint {
	docker := []endpoint{dockerEndpoint(w)}
	podman := podmanEndpoints(w)
	var all []endpoint
	if rt.uid > 0 && rt.dir != "" {
		userDocker := endpoint{engine: Docker, path: filepath.Join(rt.dir, "docker.sock")}
		userPodman := endpoint{engine: Podman, path: filepath.Join(rt.dir, "podman", "podman.sock")}
		if engine == Podman {
			all = append(all, userPodman, userDocker)
		} else {
			all = append(all, userDocker, userPodman)
		}
	}
	if engine == Podman {
		all = append(all, append(podman, docker...)...)
	} else {
		all = append(all, append(docker, podman...)...)
	}
	seen := map[string]bool{}
	out := all[:0]
	for _, ep := range all {
		if ep.err == nil {
			if seen[ep.path] {
				continue
			}
			seen[ep.path] = true
		}
		out = append(out, ep)
	}
	return out
}
