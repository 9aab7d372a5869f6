package engines

import (
	"strconv"
	"strings"
)

// Manager is who runs a process when it is not its own: a container
// engine or a service manager.
type Manager struct {
	Kind    Kind   // Container, Unit or ProcessManager
	Engine  string // "Docker", "Podman", "containerd" or "Kubernetes" (Container); "pm2" or "supervisord" (ProcessManager)
	ID      string // the container's full id (Container)
	Name    string // the container's name ("tb1"), the unit's ("nginx.service"), or the program's as its process manager calls it
	Image   string // the container's image ("bb:1")
	Project string // com.docker.compose.project label, when set
	Service string // com.docker.compose.service label, when set
	User    bool   // a user's unit (under user@UID.service): systemctl --user
	// Rootless says the container is a user's own engine's, run
	// without root (rootless Podman, rootless Docker).
	Rootless bool
	// UID is the user whose unit it is (User), whose rootless engine
	// runs the container (Rootless), or who runs the process manager.
	UID int
	// Proxy says the process is one of the engine's helpers for the
	// container (docker-proxy, rootlessport, slirp4netns, pasta,
	// rootlesskit, conmon), not in it; Helper names the program.
	Proxy  bool
	Helper string
	// Daemon is the PID of the process manager that runs the program
	// (ProcessManager): its daemon, which starts the program again when
	// it exits.
	Daemon int
	// Socket is the engine's API socket the container was found through;
	// "" when none could be asked.
	Socket string
	// Unreachable is why the engine could not be asked (name and image
	// are then unknown); nil when it answered. It wraps ErrGone when the
	// engines asked know no such container (it went meanwhile),
	// ErrNotLocal, ErrUntrusted, ErrNotAsked or an *Error.
	Unreachable error

	// api is the API version the engine at Socket answered ("1.41").
	api string
	// holder is the user whose process the engine at Socket was asked
	// about, when root trusted that user's own engine (0 otherwise): a
	// stop trusts the same socket.
	holder int
}

// Kind says what sort of manager runs a process.
type Kind string

// The kinds of manager.
const (
	Container Kind = "container"
	Unit      Kind = "unit"
	// ProcessManager is a daemon that keeps programs running and starts
	// them again when they exit (pm2, supervisord): the process is one
	// of its programs.
	ProcessManager Kind = "process-manager"
)

// The engines a container can be found under.
const (
	Docker     = "Docker"
	Podman     = "Podman"
	Containerd = "containerd"
	Kubernetes = "Kubernetes"
)

// The process managers a program can be found under.
const (
	PM2         = "pm2"
	Supervisord = "supervisord"
)

// String names the manager as a user reads it: "container tb1 (bb:1,
// 8e3f1371fb44) via Docker", with ", compose app/db" when its labels name
// a compose project and " (rootless, uid 1001)" after a user's own
// engine; "unit nginx.service"; "user unit x.service"; "pm2 process api
// (daemon 4242)". A container whose engine was not asked is named by its
// short id.
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
	case ProcessManager:
		what := "process"
		if m.Engine == Supervisord {
			what = "program"
		}
		s := m.Engine + " " + what
		if m.Name != "" {
			s += " " + m.Name
		}
		if m.Daemon > 0 {
			s += " (daemon " + strconv.Itoa(m.Daemon) + ")"
		}
		return s
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
	switch {
	case m.Engine != "":
		b.WriteString(" via " + m.Engine)
	case m.Helper != "":
		b.WriteString(" via an engine not known (" + m.Helper + ")")
	}
	if m.Rootless {
		b.WriteString(" (rootless, uid " + strconv.Itoa(m.UID) + ")")
	}
	if m.Project != "" {
		b.WriteString(", compose " + m.Project)
		if m.Service != "" {
			b.WriteString("/" + m.Service)
		}
	}
	return b.String()
}

// ShortID is the first 12 characters of a container id, as engines show
// it.
func ShortID(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}
