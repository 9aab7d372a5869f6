package reclaim

import "github.com/tetherproc/tether/internal/engines"

// Manager is who runs a holder of a port when it is not its own: a
// container engine (the container it serves, whose port proxy it may
// be) or a service manager (a systemd unit). Its Kind is one of the
// ManagerKind constants below, its Engine one of the engine names, and
// its Unreachable, when an engine could not be asked, wraps one of the
// errors below or an *EngineError. Its fields, as the type is defined
// inside the module (go doc shows no fields of an alias):
//
//	Kind        ManagerKind // ByContainer, ByUnit or ByProcessManager
//	Engine      string      // Docker, Podman, ... (a container); pm2 or supervisord (a process manager)
//	ID, Name    string      // the container's full id and name; the unit's or the program's name
//	Image       string      // the container's image
//	Project     string      // the com.docker.compose.project label, when set
//	Service     string      // the com.docker.compose.service label, when set
//	User        bool        // a user's own unit (systemctl --user)
//	Rootless    bool        // a user's own engine's container, run without root
//	UID         int         // the unit's, the rootless engine's or the process manager's user
//	Proxy       bool        // the process is one of the engine's helpers, not in the container
//	Helper      string      // which helper: docker-proxy, rootlessport, slirp4netns, pasta, ...
//	Daemon      int         // the process manager's daemon's PID
//	Socket      string      // the engine's API socket it was found through; "" when none answered
//	Unreachable error       // why no engine could be asked; nil when one answered
type Manager = engines.Manager

// ManagerKind says what sort of manager runs a holder.
type ManagerKind = engines.Kind

// The kinds of [Manager].
const (
	// ByContainer: a container engine's container holds the port, or
	// one of the engine's helpers (a port proxy) holds it for one.
	ByContainer ManagerKind = engines.Container
	// ByUnit: a systemd unit's process, a system's or a user's.
	ByUnit ManagerKind = engines.Unit
	// ByProcessManager: a program pm2 or supervisord keeps running.
	ByProcessManager ManagerKind = engines.ProcessManager
)

// EngineError is a call to an engine's API that failed: the socket
// asked, the call, and why.
type EngineError = engines.Error

// The engines and process managers a [Manager] names (its Engine).
const (
	Docker      = engines.Docker
	Podman      = engines.Podman
	Containerd  = engines.Containerd
	Kubernetes  = engines.Kubernetes
	PM2         = engines.PM2
	Supervisord = engines.Supervisord
)

// Why an engine was not asked or did not answer about a container: what
// a [Manager]'s Unreachable wraps (errors.Is), and a stop's error.
var (
	// ErrContainerGone: no engine knows the container any more.
	ErrContainerGone = engines.ErrGone
	// ErrEngineUntrusted: the socket, or a link on the way to it, is
	// not one this process takes for an engine's.
	ErrEngineUntrusted = engines.ErrUntrusted
	// ErrNotVouched: a process looks like an engine's helper, but no
	// engine asked knows it.
	ErrNotVouched = engines.ErrNotVouched
	// ErrEngineNotAsked: a Kubernetes pod's or containerd's container,
	// whose engine is not asked.
	ErrEngineNotAsked = engines.ErrNotAsked
	// ErrEngineNotLocal: $DOCKER_HOST names a socket that is not a
	// local unix socket.
	ErrEngineNotLocal = engines.ErrNotLocal
)
