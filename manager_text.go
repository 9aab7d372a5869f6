package main

import (
	"strconv"
	"strings"

	"github.com/tetherproc/tether/internal/engines"
	"github.com/tetherproc/tether/reclaim"
)

// managerText names who runs a process as a user reads it: "container
// tb1 (bb:1, 8e3f1371fb44) via Docker", with ", compose app/db" when its
// labels name a compose project and " (rootless, uid 1001)" after a
// user's own engine; "unit nginx.service"; "user unit x.service"; "pm2
// process api (daemon 4242)". A container whose engine was not asked is
// named by its short id.
func managerText(m *reclaim.Manager) string {
	if m == nil {
		return "no manager"
	}
	switch m.Kind {
	case reclaim.ByUnit:
		if m.User {
			return "user unit " + m.Name
		}
		return "unit " + m.Name
	case reclaim.ByProcessManager:
		return programText(m)
	case reclaim.ByContainer:
		return containerText(m)
	}
	return string(m.Kind) + " " + m.Name
}

// programText names a process manager's program: "pm2 process api
// (daemon 4242)", "supervisord program web:0".
func programText(m *reclaim.Manager) string {
	what := "process"
	if m.Engine == reclaim.Supervisord {
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
}

// containerText names a container: by its name, else its short id, with
// its image, its engine, a rootless engine's user and its compose
// project.
func containerText(m *reclaim.Manager) string {
	var b strings.Builder
	b.WriteString("container")
	short := engines.ShortID(m.ID)
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
