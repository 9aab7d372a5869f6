package main

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/tetherproc/tether/internal/engines"
	"github.com/tetherproc/tether/reclaim"
)

// The advice a holder's words end with: the command that stops what its
// manager runs, or finds it, and who took a port again.

// stopCommand is the command a user runs to stop what m runs: "docker
// stop tb1" ("podman stop tb1", "nerdctl stop ID"; a compose service's
// container is still stopped by name), "systemctl stop nginx.service",
// "systemctl --user stop x.service", "pm2 stop api", "supervisorctl stop
// web".
//
// It is "" when no command stops it for good: a Kubernetes pod's
// container is restarted by the kubelet whatever its runtime is told
// (its pod or the workload that owns it is what to change), and a
// container or program its manager named by neither name nor id cannot
// be named at all.
func stopCommand(m *reclaim.Manager) string {
	if m == nil {
		return ""
	}
	switch m.Kind {
	case reclaim.ByUnit:
		if m.Name == "" {
			return ""
		}
		if m.User {
			return "systemctl --user stop " + shellQuote(m.Name)
		}
		return "systemctl stop " + shellQuote(m.Name)
	case reclaim.ByProcessManager:
		return programStop(m)
	case reclaim.ByContainer:
		return containerStop(m)
	}
	return ""
}

func programStop(m *reclaim.Manager) string {
	if m.Name == "" {
		return ""
	}
	switch m.Engine {
	case reclaim.PM2:
		return "pm2 stop " + shellQuote(m.Name)
	case reclaim.Supervisord:
		return "supervisorctl stop " + shellQuote(m.Name)
	}
	return ""
}

func containerStop(m *reclaim.Manager) string {
	who := m.Name
	if who == "" {
		who = engines.ShortID(m.ID)
	}
	if who == "" {
		return ""
	}
	switch m.Engine {
	case reclaim.Docker:
		return "docker stop " + shellQuote(who)
	case reclaim.Podman:
		return "podman stop " + shellQuote(who)
	case reclaim.Containerd:
		return "nerdctl stop " + shellQuote(who)
	}
	return ""
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

// programAdvice says how a program its process manager runs is stopped,
// or, unnamed, found.
func programAdvice(m *reclaim.Manager) string {
	if m.Name != "" {
		return stopCommand(m) + " stops it"
	}
	switch m.Engine {
	case reclaim.PM2:
		return "pm2 list names it"
	case reclaim.Supervisord:
		return "supervisorctl status names it"
	}
	return m.Engine + "'s own list names it"
}

// stopAdvice says how a user stops the container m, which its engine
// could not be asked about: its own engine's command, by its name or id,
// or, where neither is known (a helper of an engine that did not answer),
// how to find it by the port it publishes (0 for none); as its user, for
// a rootless engine's container of another user.
func stopAdvice(m *reclaim.Manager, port uint16) string {
	advice := "its engine names it"
	switch cmd := stopCommand(m); {
	case cmd != "":
		advice = cmd + " stops it"
	case m.Engine == reclaim.Docker && port != 0:
		advice = fmt.Sprintf("docker ps --filter publish=%d names it", port)
	case m.Engine == reclaim.Podman && port != 0:
		advice = fmt.Sprintf("podman ps --format '{{.Names}} {{.Ports}}' names the one that publishes %d", port)
	}
	if m.Rootless && m.UID != os.Getuid() {
		advice += fmt.Sprintf(", run as uid %d", m.UID)
	}
	return advice
}

// retakerText says who took the port again and who started it: "PID
// 4321 (./server) took it again 120ms after it was freed, started by PID
// 4300 (sh -c while :; do ./server; done), which starts it again when it
// ends: end that to free the port".
func retakerText(r reclaim.Retaker) string {
	var b strings.Builder
	fmt.Fprintf(&b, "PID %d (%s) took it again %v after it was freed", r.PID, argvText(r.Command), r.After.Round(time.Millisecond))
	switch m := r.Manager; {
	case m != nil && m.Kind != reclaim.ByContainer:
		fmt.Fprintf(&b, ", run by %s", managerText(m))
		if cmd := stopCommand(m); cmd != "" {
			fmt.Fprintf(&b, ": %s stops it", cmd)
		}
	case m != nil:
		fmt.Fprintf(&b, ", %s", managerText(m))
	case r.Parent > 1:
		fmt.Fprintf(&b, ", started by PID %d (%s), which starts it again when it ends: end that to free the port", r.Parent, argvText(r.ParentCommand))
	case r.Parent == 1:
		b.WriteString(", started by PID 1 (an init, or a daemon that detached)")
	}
	return b.String()
}

// argvText is a command line on one line, or "?" for none.
func argvText(argv []string) string {
	s := joinArgv(argv)
	if s == "" {
		return "?"
	}
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}
