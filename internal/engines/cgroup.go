package engines

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/tetherproc/tether/internal/cgroup"
)

// parseCgroup reads the contents of /proc/PID/cgroup and returns the
// manager its paths name, or nil for none, and the group the manager was
// named by: the path up to and including the container's own component
// or the unit's (a path of that line's hierarchy). Only what the path
// says is filled in: Kind, Engine and ID for a container (Proxy for
// Podman's conmon), Name, User and UID for a unit.
//
// A container named on any line wins over a unit, the cgroup v2 line
// ("0::") first: with Docker's cgroupfs driver on a hybrid machine the
// container may appear only in the v1 hierarchies, while the v2 line
// still names the unit of the shim that started it. A unit is read from
// the v2 line, or from systemd's own v1 hierarchy ("name=systemd") when
// there is no v2 line; other v1 controllers follow no naming rule. A
// process of one of tether's own contained runs (a "tether-<token>" group
// on any line) has no manager: tether ends its runs itself.
func parseCgroup(data []byte) (*Manager, string) {
	var v2, systemd string
	var haveV2, haveSystemd bool
	var paths []string
	for _, line := range bytes.Split(data, []byte{'\n'}) {
		hier, path, ok := splitLine(string(line))
		if !ok {
			continue
		}
		if _, _, ok := cgroup.RunOf(path); ok {
			return nil, ""
		}
		switch hier {
		case "0:":
			if !haveV2 {
				v2, haveV2 = path, true
			}
		case "name=systemd":
			if !haveSystemd {
				systemd, haveSystemd = path, true
			}
		}
		paths = append(paths, path)
	}
	if haveV2 {
		if m, group := containerOf(v2); m != nil {
			return m, group
		}
	}
	for _, path := range paths {
		if m, group := containerOf(path); m != nil {
			return m, group
		}
	}
	switch {
	case haveV2:
		return unitOf(v2)
	case haveSystemd:
		return unitOf(systemd)
	}
	return nil, ""
}

// splitLine splits a line of /proc/PID/cgroup into a key for its
// hierarchy ("0:" for the v2 line, "name=systemd", or the controllers)
// and its path, which must be absolute. The path is the rest of the line,
// colons included.
func splitLine(line string) (hier, path string, ok bool) {
	id, rest, ok := strings.Cut(line, ":")
	if !ok || id == "" {
		return "", "", false
	}
	for _, c := range id {
		if c < '0' || c > '9' {
			return "", "", false
		}
	}
	controllers, path, ok := strings.Cut(rest, ":")
	if !ok || !strings.HasPrefix(path, "/") {
		return "", "", false
	}
	if id == "0" && controllers == "" {
		return "0:", path, true
	}
	return controllers, path, true
}

// containerOf finds the outermost container a cgroup path names: the one
// the host's engine knows (a container may run an engine of its own).
func containerOf(path string) (*Manager, string) {
	m, group := containerIn(path)
	if m != nil && m.Engine != Kubernetes {
		// A container below a user's service manager is that user's
		// own engine's: rootless Podman's libpod-ID.scope, rootless
		// Docker's docker-ID.scope.
		for _, c := range strings.Split(strings.TrimPrefix(group, "/"), "/") {
			if uid, ok := userManager(c); ok {
				m.Rootless, m.UID = true, uid
			}
		}
	}
	return m, group
}

// containerIn is containerOf without the rootless mark.
func containerIn(path string) (*Manager, string) {
	comps := strings.Split(path[1:], "/")
	for i, c := range comps {
		group := "/" + strings.Join(comps[:i+1], "/")
		// Kubernetes first: its pods' containers carry their runtime's
		// names (docker-ID.scope, cri-containerd-ID.scope), and the
		// kubelet, not that runtime, decides whether they run.
		if strings.HasPrefix(c, "kubepods") || (i == 0 && c == "k8s.io") {
			for j := len(comps) - 1; j > i; j-- {
				if id := kubeID(comps[j]); id != "" {
					return &Manager{Kind: Container, Engine: Kubernetes, ID: id}, "/" + strings.Join(comps[:j+1], "/")
				}
			}
			return nil, ""
		}
		if id, ok := scoped(c, "docker-"); ok {
			return &Manager{Kind: Container, Engine: Docker, ID: id}, group
		}
		if id, ok := scoped(c, "libpod-conmon-"); ok {
			return &Manager{Kind: Container, Engine: Podman, ID: id, Proxy: true}, group
		}
		// Podman's systemd driver makes libpod-ID.scope, its cgroupfs
		// driver libpod-ID (under libpod_parent).
		if id, ok := scoped(c, "libpod-"); ok {
			return &Manager{Kind: Container, Engine: Podman, ID: id}, group
		}
		if id, ok := strings.CutPrefix(c, "libpod-"); ok && isID(id) {
			return &Manager{Kind: Container, Engine: Podman, ID: id}, group
		}
		if id, ok := scoped(c, "nerdctl-"); ok {
			return &Manager{Kind: Container, Engine: Containerd, ID: id}, group
		}
		if id := kubeID(c); id != "" && !isID(c) {
			// cri-containerd-ID.scope or crio-ID.scope outside a
			// kubepods slice: still a CRI runtime's, so the kubelet's.
			return &Manager{Kind: Container, Engine: Kubernetes, ID: id}, group
		}
		if i+1 < len(comps) && isID(comps[i+1]) {
			group += "/" + comps[i+1]
			switch {
			case c == "docker":
				// Docker's cgroupfs driver: /docker/ID.
				return &Manager{Kind: Container, Engine: Docker, ID: comps[i+1]}, group
			case i == 0 && c == "default":
				// containerd's cgroupfs layout, /NAMESPACE/ID, for
				// nerdctl's default namespace.
				return &Manager{Kind: Container, Engine: Containerd, ID: comps[i+1]}, group
			}
		}
	}
	return nil, ""
}

// kubeID is the container id a component of a Kubernetes pod's cgroup
// names: RUNTIME-ID.scope (systemd driver) or a bare ID (cgroupfs).
func kubeID(c string) string {
	if isID(c) {
		return c
	}
	for _, prefix := range []string{"cri-containerd-", "crio-conmon-", "crio-", "docker-"} {
		if id, ok := scoped(c, prefix); ok {
			return id
		}
	}
	return ""
}

// scoped reads a systemd scope named PREFIX-ID.scope.
func scoped(c, prefix string) (string, bool) {
	id, ok := strings.CutPrefix(c, prefix)
	if !ok {
		return "", false
	}
	id, ok = strings.CutSuffix(id, ".scope")
	return id, ok && isID(id)
}

// isID reports whether s is a container id as Docker, Podman, containerd
// and CRI-O make them: 64 lowercase hex digits.
func isID(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// unitOf finds the systemd service a cgroup path names: the innermost
// NAME.service that sits in a slice (systemd puts every unit in one; the
// root slice, "-.slice", is the path's root), other than a user's
// service manager, user@UID.service, which marks the units below it as
// that user's. Scopes are not services: init.scope is systemd itself,
// session-N.scope a login, and neither is a service to stop.
func unitOf(path string) (*Manager, string) {
	comps := strings.Split(path[1:], "/")
	for i := len(comps) - 1; i >= 0; i-- {
		c := comps[i]
		if !strings.HasSuffix(c, ".service") || !isUnitName(c) {
			continue
		}
		if _, ok := userManager(c); ok {
			continue
		}
		if i > 0 && !strings.HasSuffix(comps[i-1], ".slice") {
			continue
		}
		m := &Manager{Kind: Unit, Name: c}
		for _, outer := range comps[:i] {
			if uid, ok := userManager(outer); ok {
				m.User, m.UID = true, uid
			}
		}
		return m, "/" + strings.Join(comps[:i+1], "/")
	}
	return nil, ""
}

// userManager reads user@UID.service, a user's service manager.
func userManager(c string) (int, bool) {
	s, ok := strings.CutPrefix(c, "user@")
	if !ok {
		return 0, false
	}
	s, ok = strings.CutSuffix(s, ".service")
	if !ok || s == "" || len(s) > 10 {
		return 0, false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return 0, false
		}
	}
	uid, err := strconv.Atoi(s)
	if err != nil || uid > 1<<32-1 {
		return 0, false
	}
	return uid, true
}

// isUnitName reports whether c is a unit name as systemd allows them:
// at most 255 characters of ASCII letters, digits, ":_.\@-", and a name
// before the suffix.
func isUnitName(c string) bool {
	if len(c) > 255 || len(c) <= len(".service") {
		return false
	}
	for i := 0; i < len(c); i++ {
		b := c[i]
		if !(b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || strings.IndexByte(`:_.\@-`, b) >= 0) {
			return false
		}
	}
	return true
}
