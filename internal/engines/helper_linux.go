package engines

import (
	"errors"
	"fmt"

	"github.com/tetherproc/tether/internal/proc"
)

// An engine's helper (docker-proxy, rootlessport, slirp4netns, pasta,
// rootlesskit) holds ports for a container it is not in: this file finds
// that container, through the engine that runs the helper.

// fromProxy finds the container an engine's helper serves. The helper
// must run as the user whose engine is asked (root, for a rootful
// engine): anyone may name a program docker-proxy or conmon, but not run
// it as another user. A helper whose engine knows no container for it is
// not taken for another process on its name's word: it stays a helper,
// with Unreachable saying that its engine did not vouch for it, and is
// never signalled.
func fromProxy(fs proc.FS, pid int, p *Proxy, perr error, w where) *Manager {
	m := &Manager{Kind: Container, Engine: p.Engine, Proxy: true, Helper: p.Program, ID: p.ID, Name: p.Name}
	if perr != nil {
		m.Unreachable = perr
		return m
	}
	st, err := fs.Status(pid)
	if err != nil {
		m.Unreachable = fmt.Errorf("%s %d: %w", p.Program, pid, err)
		return m
	}
	if p.Rootless {
		rootless(m, st.UID)
	}
	if err := unaskable(p, pid); err != nil {
		m.Unreachable = err
		return m
	}
	var ports []held
	if p.ID == "" && p.Program != DockerProxy {
		// Known by the ports it serves, which the engine publishes.
		if ports, err = listening(fs, pid); err != nil || len(ports) == 0 {
			if err == nil {
				err = errors.New("it holds no listening socket")
			}
			m.Unreachable = fmt.Errorf("%s %d: %w", p.Program, pid, err)
			return m
		}
	}
	rt := runtimeOf(fs, pid, st.UID)
	var why reasons
	for _, ep := range endpointsFor(p.Engine, w, rt) {
		c, err := ask(ep, rt.uid, ownedBy(st.UID, p.Program, pid))
		if err == nil {
			err = c.proxied(m, p, ports)
		}
		if err != nil {
			why = append(why, err)
			continue
		}
		m.Socket, m.api, m.holder = ep.path, c.api, c.holder
		rootless(m, c.owner)
		return m
	}
	m.Unreachable = unreachable(why)
	if m.ID == "" {
		nameUnvouched(fs, pid, p, st.UID, m)
	}
	return m
}

// unaskable says why no engine is asked about helper p: it names no
// engine tether knows, or rootless containerd's, which has no Docker
// Engine API; nil when one is to be asked.
func unaskable(p *Proxy, pid int) error {
	switch p.Engine {
	case "":
		return fmt.Errorf("%s %d names no engine that tether knows (%s): %w", p.Program, pid, unnamed[p.Program], ErrNotVouched)
	case Containerd:
		return fmt.Errorf("%s %d is rootless containerd's, which has no Docker Engine API: %w", p.Program, pid, ErrNotAsked)
	}
	return nil
}

// nameUnvouched names, in m, the container that helper p (pid, run by
// uid) serves when no engine could be asked and p names none: by the
// conmon of the container whose network it serves (rootlessport,
// pasta), or the shim of the container that has its address
// (docker-proxy).
func nameUnvouched(fs proc.FS, pid int, p *Proxy, uid int, m *Manager) {
	switch p.Program {
	case RootlessPort, Pasta:
		if c := monitorOf(fs, pid, p, uid); c != nil {
			m.ID, m.Name = c.ID, c.Name
		}
	case DockerProxy:
		m.ID = shimOf(fs, p.ContainerIP)
	}
}

// unnamed says what would have named a helper's engine.
var unnamed = map[string]string{
	Slirp4netns: "no container in its API socket's name, and no rootlesskit above it",
	RootlessKit: "it runs neither dockerd-rootless.sh nor containerd-rootless.sh",
}

// proxied fills m in with the container the engine at c says helper p
// serves: conmon's and slirp4netns's by their id, the others' by the
// ports they publish (docker-proxy's by its flags, the others' by their
// listening sockets). When the engine knows no such container, the
// error wraps ErrNotVouched.
func (c *client) proxied(m *Manager, p *Proxy, ports []held) error {
	if p.ID != "" {
		info, err := c.inspect(p.ID)
		if errors.Is(err, ErrGone) {
			return fmt.Errorf("engine at %s knows no container %s that %s names: %w", c.socket, ShortID(p.ID), p.Program, ErrNotVouched)
		}
		if err != nil {
			return err
		}
		if !info.State.Running {
			return fmt.Errorf("engine at %s: container %s that %s names does not run: %w", c.socket, ShortID(p.ID), p.Program, ErrNotVouched)
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
