// Package engines says who runs a process when it is not its own: a
// container engine (Docker, Podman; containerd and Kubernetes are named
// but not asked) or a systemd service. It stops a container through its
// engine's API.
//
// It exists because ending such a process by a signal does harm. Killing
// docker-proxy frees the port while Docker shows the container up with a
// mapping to a proxy that is gone; killing a process of a container with
// a restart policy, or of a systemd unit, brings it back or marks the
// unit failed. What holds a port is named by its manager (Of, String),
// which a caller words as the command that stops it, and a container is
// stopped the way its engine stops it (Stop), never by signalling its
// proxy.
//
// # What names the manager
//
// A process's /proc/PID/cgroup names its container or unit (parseCgroup):
// docker-ID.scope or /docker/ID (Docker's systemd and cgroupfs drivers,
// cgroup v1 and v2 alike), libpod-ID.scope or libpod-ID (Podman; its
// conmon's libpod-conmon-ID.scope is the proxy's), nerdctl-ID.scope or
// /default/ID (containerd), anything under a kubepods slice (or
// containerd's k8s.io namespace, CRI-O's crio-ID.scope,
// cri-containerd-ID.scope) a Kubernetes pod's, and NAME.service in a
// slice a systemd unit (a user's, below user@UID.service). The outermost
// container is the one named: the host's engine knows it. A process of
// tether's own contained run is nobody's: tether ends its runs itself.
//
// An engine's port proxy runs beside the engine, not in the container,
// so its command line names it (ParseProxy): docker-proxy's flags say
// which port it publishes to which container address, conmon's -c which
// container it monitors; rootlessport's ports are its listening sockets.
//
// # Asking an engine
//
// Only for a container is an engine asked, so looking up the holders of
// a port costs no call unless a container holds it. The Docker Engine
// API, which Podman answers too, is spoken over the engine's unix socket
// with net/http (exchange.go: no proxy, the peer checked as it connects):
// a connection per call, the API version from the Api-Version header of
// GET /_ping (GET /version's body where an engine gives no header), five
// seconds for every call (a stop: its grace and five seconds), only the
// fields used decoded. The official client module is not used: it would
// bring dozens of packages into a tool whose start-up and size are
// measured, for four calls.
//
// The sockets asked, first those of the holder's user (its
// $XDG_RUNTIME_DIR, else /run/user/UID: docker.sock, podman/podman.sock,
// where a rootless engine serves), then $DOCKER_HOST when it is
// unix:///PATH (another scheme is not followed, and the default is not
// asked instead), else /var/run/docker.sock, and Podman's
// /run/podman/podman.sock; the engine that the cgroup or the helper
// names first. A socket is trusted (vouch, checkPeer) only when it is
// root's, the caller's or, for root, the holder's user's; when no one but
// its owner and its group (root's or docker's, one of the owner's own or
// subordinate groups) may write to it; when every symbolic link on the
// way to it is owned as the socket may be (whoever owns a link chooses
// where it leads); and when the process listening there runs as such a
// user (the kernel's peer credentials, on Linux and macOS). A process
// found in a container by its cgroup is taken for the container's only
// when the container's own first process is in the same group (anyone
// may name a cgroup of their own docker-ID.scope); a helper (a proxy,
// conmon, rootlessport, slirp4netns, pasta, rootlesskit) only when the
// engine asked names the container and runs as the helper's user (anyone
// may name a program docker-proxy or conmon).
//
// Errors are values: ErrGone for a container the engine no longer knows,
// *Error for a call that failed (socket, call, what), ErrUntrusted,
// ErrNotLocal and ErrNotAsked inside Manager.Unreachable. Nothing here
// prints, and nothing here signals a process.
//
// Of reads Linux's process table, and answers nil elsewhere; Stop and
// the client work wherever unix sockets do.
package engines
