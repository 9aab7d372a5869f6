package engines

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

// ShortID is the first 12 characters of a container id, as engines show
// it.
func ShortID(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}
