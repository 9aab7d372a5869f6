package engines

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/tetherproc/tether/internal/proc"
)

// host is where this machine's engines listen.
var host = where{
	getenv:       os.Getenv,
	dockerSocket: "/var/run/docker.sock",
	podmanSocket: "/run/podman/podman.sock",
}

// The labels Docker Compose puts on the containers it makes.
const (
	composeProject = "com.docker.compose.project"
	composeService = "com.docker.compose.service"
)

// Of returns the manager of process pid, or nil for none: a container
// engine's container (the process runs in it, or is the engine's port
// proxy for it) or a systemd service.
//
// The process's cgroup says which container or unit it is in; a port
// proxy is known by its command line (docker-proxy, conmon,
// rootlessport), since it runs beside the engine, not in the container.
// Only for a container is an engine asked (its name, image and compose
// labels; for a proxy, which container it serves): what holds a port is
// looked up without a single call to an engine unless a container holds
// it. When no engine can be asked, the container comes back all the
// same, with what its cgroup or proxy said and Unreachable saying why.
func Of(pid int) *Manager {
	return find(proc.Host(), pid, host)
}

// OfRead is Of for a process the caller has read already: what r holds
// is not read again.
func OfRead(pid int, r Read) *Manager {
	return findRead(proc.Host(), pid, r, host)
}

// find is Of on a process table, with engines listening where w says.
func find(fs proc.FS, pid int, w where) *Manager { return findRead(fs, pid, Read{}, w) }

// findRead is OfRead on a process table, with engines listening where w
// says.
func findRead(fs proc.FS, pid int, r Read, w where) *Manager {
	if pid <= 0 {
		return nil
	}
	var placed *Manager
	var group string
	if data, err := r.cgroup(fs, pid); err == nil {
		placed, group = parseCgroup(data)
	}
	if placed != nil && placed.Kind == Container {
		switch placed.Engine {
		case Kubernetes:
			placed.Unreachable = fmt.Errorf("container %s is a Kubernetes pod's: the kubelet restarts what its runtime stops: %w", ShortID(placed.ID), ErrNotAsked)
			return placed
		case Containerd:
			placed.Unreachable = fmt.Errorf("container %s is containerd's, which has no Docker Engine API: %w", ShortID(placed.ID), ErrNotAsked)
			return placed
		}
		if !placed.Proxy {
			return fromCgroup(fs, pid, placed, group, w)
		}
	}
	argv := r.Argv
	if argv == nil {
		argv, _ = fs.Cmdline(pid)
	}
	if p, err := ParseProxy(argv); p != nil {
		if p.Engine == "" {
			p.Engine = engineAbove(fs, pid)
		}
		return fromProxy(fs, pid, p, err, w)
	}
	if placed != nil && placed.Kind == Container {
		// Podman's conmon scope, by another name than conmon's.
		return fromProxy(fs, pid, &Proxy{Program: Conmon, Engine: Podman, ID: placed.ID}, nil, w)
	}
	// Where no cgroup names the container (cgroup v1, or no systemd: a
	// rootless container gets no group of its own), the process that
	// monitors it does: a container's processes descend from its conmon.
	if m := fromAncestors(fs, pid, r.PPID, w); m != nil {
		return m
	}
	return placed
}

// maxDepth bounds the ancestors looked at for a container's monitor or
// a program's process manager: a container's process sits a few levels
// below its conmon, a program one below its daemon.
const maxDepth = 16

// fromAncestors finds the container whose conmon pid descends from, or
// the process manager that started it; nil for neither.
func fromAncestors(fs proc.FS, pid, ppid int, w where) *Manager {
	chain := []int{pid}
	for cur := pid; len(chain) <= maxDepth; {
		parent := ppid
		if cur != pid || parent == 0 {
			st, err := fs.Stat(cur)
			if err != nil {
				return nil
			}
			parent = st.PPID
		}
		if parent <= 1 {
			return nil
		}
		argv, _ := fs.Cmdline(parent)
		if p, perr := ParseProxy(argv); p != nil && p.Program == Conmon {
			if perr != nil {
				return &Manager{Kind: Container, Engine: Podman, Unreachable: fmt.Errorf("process %d descends from conmon %d: %w", pid, parent, perr)}
			}
			return fromMonitor(fs, pid, chain, parent, p, w)
		}
		if len(chain) == 1 {
			if m := programOf(fs, pid, parent, argv); m != nil {
				return m
			}
		}
		chain = append(chain, parent)
		cur = parent
	}
	return nil
}

// engineAbove is the engine of the rootlesskit that a helper runs under
// (rootless Docker's slirp4netns, say); "" for none.
func engineAbove(fs proc.FS, pid int) string {
	for cur, depth := pid, 0; depth < maxDepth; depth++ {
		st, err := fs.Stat(cur)
		if err != nil || st.PPID <= 1 {
			return ""
		}
		argv, _ := fs.Cmdline(st.PPID)
		if p, _ := ParseProxy(argv); p != nil && p.Program == RootlessKit {
			return p.Engine
		}
		cur = st.PPID
	}
	return ""
}

// fromMonitor asks the engine about the container that conmon monitors,
// for pid, a process below it (chain: pid, its parent, … up to the
// conmon's child). The engine vouches for it: the container it names by
// that id must run, and its first process must be on the chain. Without
// an engine's word the container is still named (conmon's id and name),
// with Unreachable saying why.
func fromMonitor(fs proc.FS, pid int, chain []int, conmon int, p *Proxy, w where) *Manager {
	m := &Manager{Kind: Container, Engine: Podman, ID: p.ID, Name: p.Name}
	st, err := fs.Status(conmon)
	if err != nil {
		m.Unreachable = fmt.Errorf("conmon %d: %w", conmon, err)
		return m
	}
	rootless(m, st.UID)
	var why reasons
	for _, ep := range endpointsFor(Podman, w, runtimeOf(fs, conmon, st.UID)) {
		c, err := ask(ep, st.UID, ownedBy(st.UID, Conmon, conmon))
		if err != nil {
			why = append(why, err)
			continue
		}
		info, err := c.inspect(p.ID)
		if err == nil && !slices.Contains(chain, info.State.Pid) {
			err = fmt.Errorf("engine at %s: container %s's first process is %d, not process %d or one of its ancestors below conmon %d: %w",
				ep.path, ShortID(p.ID), info.State.Pid, pid, conmon, ErrNotVouched)
		}
		if err != nil {
			if errors.Is(err, ErrGone) {
				err = fmt.Errorf("engine at %s knows no container %s that conmon %d names: %w", ep.path, ShortID(p.ID), conmon, ErrNotVouched)
			}
			why = append(why, err)
			continue
		}
		fillInspected(m, info)
		m.Socket, m.api, m.holder = ep.path, c.api, c.holder
		rootless(m, c.owner)
		return m
	}
	m.Unreachable = unreachable(why)
	return m
}

// rootless marks m as a user's own engine's when uid, who runs its
// helper or engine, is not root.
func rootless(m *Manager, uid int) {
	if uid > 0 {
		m.Rootless, m.UID = true, uid
	}
}

// ownedBy is the check that an engine's socket is owned by the user who
// runs program pid: anyone may name a program conmon or docker-proxy, but
// not run it as another user, and an engine answers only for its own
// user's containers.
func ownedBy(uid int, program string, pid int) func(*client) error {
	return func(c *client) error {
		if c.owner != uid {
			return fmt.Errorf("engine at %s is uid %d's, but %s %d runs as uid %d: %w", c.socket, c.owner, program, pid, uid, ErrUntrusted)
		}
		return nil
	}
}

// runtimeOf is where the user uid's own engines listen, for process pid
// of that user: its $XDG_RUNTIME_DIR, else /run/user/UID. Nothing for
// root, whose engines listen where the system's do.
func runtimeOf(fs proc.FS, pid, uid int) userRuntime {
	if uid <= 0 {
		return userRuntime{uid: -1}
	}
	rt := userRuntime{uid: uid, dir: "/run/user/" + strconv.Itoa(uid)}
	if env, err := fs.Environ(pid); err == nil {
		for _, kv := range env {
			if v, ok := strings.CutPrefix(kv, "XDG_RUNTIME_DIR="); ok && filepath.IsAbs(v) {
				rt.dir = filepath.Clean(v)
			}
		}
	}
	return rt
}

// fromCgroup asks the engines for the container that pid's cgroup names,
// its own engine first. An engine's answer is taken only when the
// container's own first process is in the same group: a cgroup is named
// by whoever makes it, and a user may make one called docker-ID.scope in
// a subtree of their own.
func fromCgroup(fs proc.FS, pid int, m *Manager, group string, w where) *Manager {
	var why reasons
	rt := userRuntime{uid: -1}
	if m.Rootless {
		rt = runtimeOf(fs, pid, m.UID)
	}
	for _, ep := range endpointsFor(m.Engine, w, rt) {
		c, err := ask(ep, rt.uid)
		if err != nil {
			why = append(why, err)
			continue
		}
		info, err := c.inspect(m.ID)
		if errors.Is(err, ErrGone) {
			why = append(why, fmt.Errorf("engine at %s: container %s: %w", ep.path, ShortID(m.ID), ErrGone))
			continue
		}
		if err != nil {
			why = append(why, err)
			continue
		}
		if err := sameGroup(fs, pid, m, group, info.State.Pid); err != nil {
			why = append(why, fmt.Errorf("engine at %s: %w", ep.path, err))
			continue
		}
		fillInspected(m, info)
		m.Socket, m.api, m.holder = ep.path, c.api, c.holder
		rootless(m, c.owner)
		return m
	}
	m.Unreachable = unreachable(why)
	return m
}

// sameGroup checks that the container's first process, init, is in the
// group of pid's cgroup that names the container.
func sameGroup(fs proc.FS, pid int, m *Manager, group string, init int) error {
	if init <= 0 {
		return fmt.Errorf("container %s does not run, yet process %d is in its cgroup %s: %w", ShortID(m.ID), pid, group, ErrUntrusted)
	}
	if init == pid {
		return nil
	}
	data, err := fs.ReadFile(init, "cgroup")
	if err != nil {
		return fmt.Errorf("container %s's process %d: %w", ShortID(m.ID), init, err)
	}
	theirs, theirGroup := parseCgroup(data)
	if theirs == nil || theirs.ID != m.ID || theirGroup != group {
		return fmt.Errorf("process %d is in cgroup %s, but container %s's own process %d is in %s: %w",
			pid, group, ShortID(m.ID), init, theirGroup, ErrUntrusted)
	}
	return nil
}
