package engines

import (
	"strings"
)

// Manager is who runs a process when it is not its own: a container
// engine or a service manager.
type Manager struct {
	Kind    Kind   `json:"kind"`                      // Container or Unit
	Engine  string `json:"engine,omitempty"`          // "Docker", "Podman", "containerd" or "Kubernetes" (Container)
	ID      string `json:"id,omitempty"`              // the container's full id (Container)
	Name    string `json:"name,omitempty"`            // the container's name ("tb1"), or the unit's ("nginx.service")
	Image   string `json:"image,omitempty"`           // the container's image ("bb:1")
	Project string `json:"compose_project,omitempty"` // com.docker.compose.project label, when set
	Service string `json:"compose_service,omitempty"` // com.docker.compose.service label, when set
	User    bool   `json:"user,omitempty"`            // a user's unit (under user@UID.service): systemctl --user
	UID     int    `json:"uid,omitempty"`             // the user whose unit it is (User)
	// Proxy says the process is the engine's port proxy for the container
	// (docker-proxy, rootlessport, conmon's reservation), not in it.
	Proxy bool `json:"proxy,omitempty"`
	// Socket is the engine's API socket the container was found through;
	// "" when none could be asked.
	Socket string `json:"engine_socket,omitempty"`
	// Unreachable is why the engine could not be asked (name and image
	// are then unknown); nil when it answered. It wraps ErrGone when the
	// engines asked know no such container (it went meanwhile),
	// ErrNotLocal, ErrUntrusted, ErrNotAsked or an *Error.
	Unreachable error `json:"-"`

	// api is the API version the engine at Socket answered ("1.41").
	api string
}

// Kind says what sort of manager runs a process.
type Kind string

// The kinds of manager.
const (
	Container Kind = "container"
	Unit      Kind = "unit"
)

// The engines a container can be found under.
const (
	Docker     = "Docker"
	Podman     = "Podman"
	Containerd = "containerd"
	Kubernetes = "Kubernetes"
)

// String names the manager as a user reads it: "container tb1 (bb:1,
// 8e3f1371fb44) via Docker", with ", compose app/db" when its labels name
// a compose project; "unit nginx.service"; "user unit x.service". A
// container whose engine was not asked is named by its short id.
func (m *Manager) String() string {
	if m == nil {
		return "no manager"
	}
	switch m.Kind {
	case Unit:
		if m.User {
			return "user unit " + m.Name
		}
		return "unit " + m.Name
	case Container:
	default:
		return string(m.Kind) + " " + m.Name
	}
	var b strings.Builder
	b.WriteString("container")
	short := ShortID(m.ID)
	var detail []string
	if m.Image != "" {
		detail = append(detail, m.Image)
	}
	switch {
	case m.Name != "":
		b.WriteString(" " + m.Name)
		if short != "" {
			detail = append(detail, short)
		}
	case short != "":
		b.WriteString(" " + short)
	default:
		b.WriteString(" (unknown)")
	}
	if len(detail) > 0 {
		b.WriteString(" (" + strings.Join(detail, ", ") + ")")
	}
	if m.Engine != "" {
		b.WriteString(" via " + m.Engine)
	}
	if m.Project != "" {
		b.WriteString(", compose " + m.Project)
		if m.Service != "" {
			b.WriteString("/" + m.Service)
		}
	}
	return b.String()
}

// StopCommand is the command a user runs to stop what the manager runs:
// "docker stop tb1" ("podman stop tb1", "nerdctl stop ID"; a compose
// service's container is still stopped by name), "systemctl stop
// nginx.service", "systemctl --user stop x.service".
//
// It is "" when no command stops it for good: a Kubernetes pod's
// container is restarted by the kubelet whatever its runtime is told
// (its pod or the workload that owns it is what to change), and a
// container whose engine named neither its name nor its id cannot be
// named at all.
func (m *Manager) StopCommand() string {
	if m == nil {
		return ""
	}
	switch m.Kind {
	case Unit:
		if m.Name == "" {
			return ""
		}
		if m.User {
			return "systemctl --user stop " + shellQuote(m.Name)
		}
		return "systemctl stop " + shellQuote(m.Name)
	case Container:
	default:
		return ""
	}
	who := m.Name
	if who == "" {
		who = ShortID(m.ID)
	}
	if who == "" {
		return ""
	}
	switch m.Engine {
	case Docker:
		return "docker stop " + shellQuote(who)
	case Podman:
		return "podman stop " + shellQuote(who)
	case Containerd:
		return "nerdctl stop " + shellQuote(who)
	}
	return ""
}

// ShortID is the first 12 characters of a container id, as engines show
// it.
func ShortID(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

// shellQuote quotes s for a POSIX shell when it holds anything beyond
// the characters container and unit names are made of.
func shellQuote(s string) string {
	safe := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("@%+=:,./_-", r)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
