package engines

import (
	"errors"
	"strings"
)

// Asking an engine about a container, and what its answers fill in of
// a Manager: this file is shared by the ways a container is found.

// ask checks an endpoint's socket, and whatever else the caller checks
// of it before a call is made, then asks its engine for its version.
func ask(ep endpoint, holder int, checks ...func(*client) error) (*client, error) {
	if ep.err != nil {
		return nil, ep.err
	}
	c, err := dial(ep.path, holder)
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
