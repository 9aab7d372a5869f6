package mcpconfig

import (
	"fmt"
	"strings"

	"github.com/tailscale/hujson"
)

// jsonSyntax is JSON and JSON with comments and trailing commas (VS
// Code's files, Gemini's), read with hujson, which keeps every byte's
// offset.
type jsonSyntax struct{ client Client }

// keys are the members that hold servers at the top of a client's file.
func (s jsonSyntax) keys() []string {
	switch s.client {
	case VSCode:
		return []string{"servers"}
	case Unknown:
		return []string{"mcpServers", "servers"}
	}
	return []string{"mcpServers"}
}

func (s jsonSyntax) layout() string {
	l := strings.Join(s.keys(), " ")
	if s.projects() {
		l += " projects"
	}
	return l
}

// projects reports whether the client reads each project's servers
// from the file too.
func (s jsonSyntax) projects() bool { return s.client == ClaudeCode || s.client == Unknown }

func (s jsonSyntax) servers(data []byte) ([]found, error) {
	v, err := hujson.Parse(data)
	if err != nil {
		return nil, err
	}
	root, ok := v.Value.(*hujson.Object)
	if !ok {
		return nil, fmt.Errorf("the top level is not an object")
	}
	var out []found
	for _, key := range s.keys() {
		got, err := jsonServers(root, key, "")
		if err != nil {
			return nil, err
		}
		out = append(out, got...)
	}
	if !s.projects() {
		return out, nil
	}
	// Claude Code keeps each project's own servers under its path.
	projects, ok := jsonMember(root, "projects")
	if !ok {
		return out, nil
	}
	po, ok := projects.Value.Value.(*hujson.Object)
	if !ok {
		return out, nil
	}
	for _, p := range po.Members {
		o, ok := p.Value.Value.(*hujson.Object)
		if !ok {
			continue
		}
		got, err := jsonServers(o, "mcpServers", jsonString(p.Name))
		if err != nil {
			return nil, err
		}
		out = append(out, got...)
	}
	return out, nil
}

// jsonMember is the object's member named key: the last, as a
// JavaScript client reads a key given twice.
func jsonMember(o *hujson.Object, key string) (hujson.ObjectMember, bool) {
	for i := len(o.Members) - 1; i >= 0; i-- {
		if jsonString(o.Members[i].Name) == key {
			return o.Members[i], true
		}
	}
	return hujson.ObjectMember{}, false
}

func jsonIndex(o *hujson.Object, key string) int {
	for i := len(o.Members) - 1; i >= 0; i-- {
		if jsonString(o.Members[i].Name) == key {
			return i
		}
	}
	return -1
}

// jsonString is a string literal's value; "" for any other value.
func jsonString(v hujson.Value) string {
	if l, ok := v.Value.(hujson.Literal); ok && l.Kind() == '"' {
		return l.String()
	}
	return ""
}

func jsonServers(o *hujson.Object, key, project string) ([]found, error) {
	m, ok := jsonMember(o, key)
	if !ok {
		return nil, nil
	}
	servers, ok := m.Value.Value.(*hujson.Object)
	if !ok {
		return nil, fmt.Errorf("%q is not an object", key)
	}
	var out []found
	for _, s := range servers.Members {
		f := found{entry: Entry{Server: jsonString(s.Name), Project: project, Kind: Odd}}
		if e, ok := s.Value.Value.(*hujson.Object); ok {
			jsonEntry(&f, e)
		}
		out = append(out, f)
	}
	return out, nil
}
