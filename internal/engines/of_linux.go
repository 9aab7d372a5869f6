package engines

import (
	"errors"
	"fmt"
	"os"
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

// find is Of on a process table, with engines listening where w says.
func find(fs proc.FS, pid int, w where) *Manager {
	if pid <= 0 {
		return nil
	}
	var placed *Manager
	var group string
	if data, err := fs.ReadFile(pid, "cgroup"); err == nil {
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
	argv, _ := fs.Cmdline(pid)
	if p, err := ParseProxy(argv); p != nil {
		return fromProxy(fs, pid, p, err, w)
	}
	if placed != nil && placed.Kind == Container {
		// Podman's conmon scope, by another name than conmon's.
		return fromProxy(fs, pid, &Proxy{Program: Conmon, Engine: Podman, ID: placed.ID}, nil, w)
	}
	return placed
}

// fromCgroup asks the engines for the container that pid's cgroup names,
// its own engine first. An engine's answer is taken only when the
// container's own first process is in the same group: a cgroup is named
// by whoever makes it, and a user may make one called docker-ID.scope in
// a subtree of their own.
func fromCgroup(fs proc.FS, pid int, m *Manager, group string, w where) *Manager {
	var why reasons
	for _, ep := range endpointsFor(m.Engine, w) {
		c, err := ask(ep)
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
		m.Socket, m.api = ep.path, c.api
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

// fromProxy finds the container a port proxy serves. The proxy must run
// as the user whose engine is asked (root, for a rootful engine): anyone
// may name a program docker-proxy or conmon, but not run it as root.
func fromProxy(fs proc.FS, pid int, p *Proxy, perr error, w where) *Manager {
	m := &Manager{Kind: Container, Engine: p.Engine, Proxy: true, ID: p.ID, Name: p.Name}
	if perr != nil {
		m.Unreachable = perr
		return m
	}
	st, err := fs.Status(pid)
	if err != nil {
		m.Unreachable = fmt.Errorf("%s %d: %w", p.Program, pid, err)
		return m
	}
	var ports []held
	if p.Program == RootlessPort {
		if ports, err = listening(fs, pid); err != nil || len(ports) == 0 {
			if err == nil {
				err = errors.New("it holds no listening socket")
			}
			m.Unreachable = fmt.Errorf("%s %d: %w", p.Program, pid, err)
			return m
		}
	}
	var why reasons
	for _, ep := range endpointsFor(p.Engine, w) {
		c, err := ask(ep, func(c *client) error {
			if c.owner != st.UID {
				return fmt.Errorf("engine at %s is uid %d's, but %s %d runs as uid %d: %w", ep.path, c.owner, p.Program, pid, st.UID, ErrUntrusted)
			}
			return nil
		})
		if err == nil {
			err = c.proxied(m, p, ports)
		}
		if err != nil {
			why = append(why, err)
			continue
		}
		m.Socket, m.api = ep.path, c.api
		return m
	}
	m.Unreachable = unreachable(why)
	return m
}

// proxied fills m in with the container the engine at c says proxy p
// serves: conmon's by its id, the others' by the ports it publishes.
func (c *client) proxied(m *Manager, p *Proxy, ports []held) error {
	if p.Program == Conmon {
		info, err := c.inspect(p.ID)
		if errors.Is(err, ErrGone) {
			return fmt.Errorf("engine at %s: container %s: %w", c.socket, ShortID(p.ID), ErrGone)
		}
		if err != nil {
			return err
		}
		fillInspected(m, info)
		return nil
	}
	list, err := c.list()
	if err != nil {
		return err
	}
	var found listed
	if p.Program == DockerProxy {
		found, err = matchDockerProxy(list, p)
	} else {
		found, err = matchPorts(list, ports)
	}
	if err != nil {
		return fmt.Errorf("engine at %s: %w", c.socket, err)
	}
	fillListed(m, found)
	return nil
}

// ask checks an endpoint's socket, and whatever else the caller checks
// of it before a call is made, then asks its engine for its version.
func ask(ep endpoint, checks ...func(*client) error) (*client, error) {
	if ep.err != nil {
		return nil, ep.err
	}
	c, err := dial(ep.path)
	if err != nil {
		return nil, err
	}
	for _, check := range checks {
		if err := check(c); err != nil {
			return nil, err
		}
	}
	if err := c.version(); err != nil {
		return nil, err
	}
	return c, nil
}

func fillInspected(m *Manager, info inspected) {
	if info.ID != "" {
		m.ID = info.ID
	}
	m.Name = strings.TrimPrefix(info.Name, "/")
	m.Image = info.Config.Image
	m.Project = info.Config.Labels[composeProject]
	m.Service = info.Config.Labels[composeService]
}

func fillListed(m *Manager, c listed) {
	m.ID = c.ID
	m.Name = ""
	if len(c.Names) > 0 {
		m.Name = strings.TrimPrefix(c.Names[0], "/")
	}
	m.Image = c.Image
	m.Project = c.Labels[composeProject]
	m.Service = c.Labels[composeService]
}

// reasons are why no engine could be asked, one per socket tried: one
// line, each reason in turn.
type reasons []error

func (r reasons) Error() string {
	parts := make([]string, len(r))
	for i, err := range r {
		parts[i] = err.Error()
	}
	return strings.Join(parts, "; ")
}

func (r reasons) Unwrap() []error { return r }

// unreachable is the error for reasons: the one reason itself, or all.
func unreachable(r reasons) error {
	switch len(r) {
	case 0:
		return errors.New("no engine socket to ask")
	case 1:
		return r[0]
	}
	return r
}
