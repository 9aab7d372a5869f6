package reclaim

import (
	"slices"
	"time"

	"github.com/tetherproc/tether/internal/engines"
	"github.com/tetherproc/tether/internal/sockets"
	"github.com/tetherproc/tether/internal/trace"
)

// Listener is a socket that serves a port: a listening TCP socket or a
// bound, unconnected UDP socket ("tcp 0.0.0.0:8080"). Its fields, as the
// type is defined inside the module (go doc shows no fields of an
// alias):
//
//	Proto string     // "tcp" or "udp"
//	Addr  netip.Addr // the local address; unspecified for all of them
//	Port  uint16     // the local port
//	UID   int        // the socket's owner
//	Inode uint64     // the inode its holders' fds name
type Listener = sockets.Listener

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

// EngineError is a call to an engine's API that failed: the socket
// asked, the call, and why.
type EngineError = engines.Error

// PortState is what serves one port: whether anything does, and the
// processes seen holding it. A port can be held with no holder in sight:
// another user's process, whose fd table cannot be read.
type PortState struct {
	Port    uint16
	Free    bool  // nothing serves it, in sight or out of it
	Holders []int // the PIDs seen holding it
	// Hidden are the owners (uids) of sockets on the port whose holding
	// process could not be seen.
	Hidden []int
	// Left is, for a port that is held after a reclaim (or would be
	// after a dry run), each holder left and why.
	Left []LeftHolder
	// Again are the processes that took the port again after the
	// reclaim freed it, within [Action.Settle].
	Again []Retaker
}

// portStates tells, per port, whether anything serves it, which visible
// processes hold it, and the owners of sockets whose holder is out of sight.
func portStates(ports []uint16, ls map[uint64]Listener, hs []sockets.Holder) []PortState {
	seen := map[uint64]bool{}
	byPort := map[uint16]*PortState{}
	out := make([]PortState, len(ports))
	for i, p := range ports {
		out[i] = PortState{Port: p, Free: true}
		byPort[p] = &out[i]
	}
	for _, h := range hs {
		st := byPort[h.Listener.Port]
		seen[h.Listener.Inode] = true
		if !slices.Contains(st.Holders, h.PID) {
			st.Holders = append(st.Holders, h.PID)
		}
	}
	for ino, l := range ls {
		st := byPort[l.Port]
		st.Free = false
		if !seen[ino] && !slices.Contains(st.Hidden, l.UID) {
			st.Hidden = append(st.Hidden, l.UID)
		}
	}
	for i := range out {
		slices.Sort(out[i].Holders)
		slices.Sort(out[i].Hidden)
	}
	return out
}

// after carries the port states past a reclaim without walking every fd
// table again: the sockets still serving each port are listed anew (one
// cheap netlink dump), and those held by a process that did not end keep
// it as their holder. A socket with no holder left in sight (one that an
// unseen process held too, or one bound while the reclaim ran) counts by
// its owner as hidden: the port is not free.
func after(ports []uint16, proto string, hs []sockets.Holder, results []Result) []PortState {
	ended := map[int]bool{}
	for _, r := range results {
		if r.ended() {
			ended[r.PID] = true
		}
	}
	ls, err := listeners(ports, proto)
	// A socket whose holders all ended can outlive them by a moment: a
	// process is seen gone (a zombie, on the paths without pidfds) while
	// its last thread still releases its descriptors. It is looked at
	// again for up to a second before it is said to be held.
	for deadline := time.Now().Add(time.Second); err == nil && lingering(ls, hs, ended) && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
		ls, err = listeners(ports, proto)
	}
	if err != nil {
		trace.Printf("port states after the reclaim: %v", err)
		ls = map[uint64]Listener{}
	}
	var still []sockets.Holder
	known := map[uint64]bool{}
	for _, h := range hs {
		known[h.Listener.Inode] = true
		if _, open := ls[h.Listener.Inode]; open && !ended[h.PID] {
			still = append(still, h)
		}
	}
	again := retakenAtOnce(ls, known, ended)
	states := portStates(ports, ls, append(still, again...))
	for _, h := range again {
		for i := range states {
			if states[i].Port == h.Listener.Port && !slices.ContainsFunc(states[i].Again, func(r Retaker) bool { return r.PID == h.PID }) {
				states[i].Again = append(states[i].Again, retakerOf(h.PID, 0))
			}
		}
	}
	return states
}

// retakenAtOnce are the holders of the sockets of ls that were bound
// while the reclaim ran (none of known, the sockets seen before it): a
// restart loop or a process manager whose new server took the port before
// it was ever seen free. They are looked up (one walk of the fd tables,
// only then), so that the port is said to be held by them, taken again,
// not by a process out of sight.
func retakenAtOnce(ls map[uint64]Listener, known map[uint64]bool, ended map[int]bool) []sockets.Holder {
	fresh := map[uint64]Listener{}
	for ino, l := range ls {
		if !known[ino] {
			fresh[ino] = l
		}
	}
	if len(fresh) == 0 {
		return nil
	}
	hs, err := sockets.Holders(fresh)
	if err != nil {
		trace.Printf("port states after the reclaim: holders of new sockets: %v", err)
	}
	return slices.DeleteFunc(hs, func(h sockets.Holder) bool { return ended[h.PID] })
}

// listeners are the sockets of proto ("" for any) on ports now.
func listeners(ports []uint16, proto string) (map[uint64]Listener, error) {
	ls, err := sockets.Listeners(ports...)
	return ofProto(ls, proto), err
}

// ofProto keeps the listeners of proto ("" for any).
func ofProto(ls map[uint64]Listener, proto string) map[uint64]Listener {
	if proto == "" {
		return ls
	}
	for ino, l := range ls {
		if l.Proto != proto {
			delete(ls, ino)
		}
	}
	return ls
}

// holdersOfProto keeps the holders of listeners of proto ("" for any).
func holdersOfProto(hs []sockets.Holder, proto string) []sockets.Holder {
	if proto == "" {
		return hs
	}
	return slices.DeleteFunc(hs, func(h sockets.Holder) bool { return h.Listener.Proto != proto })
}

// lingering reports whether a socket of ls was held only by processes
// that ended.
func lingering(ls map[uint64]Listener, hs []sockets.Holder, ended map[int]bool) bool {
	live := map[uint64]bool{}
	for _, h := range hs {
		if !ended[h.PID] {
			live[h.Listener.Inode] = true
		}
	}
	for _, h := range hs {
		if _, open := ls[h.Listener.Inode]; open && ended[h.PID] && !live[h.Listener.Inode] {
			return true
		}
	}
	return false
}

func traceStates(states []PortState) {
	for _, st := range states {
		switch {
		case st.Free:
			trace.Printf("port %d: free", st.Port)
		case len(st.Hidden) > 0:
			trace.Printf("port %d: held by %v and by processes of uid %v out of sight", st.Port, st.Holders, st.Hidden)
		default:
			trace.Printf("port %d: held by %v", st.Port, st.Holders)
		}
	}
}
