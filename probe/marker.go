package probe

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
)

// The variables of the marker protocol, v1.
const (
	// DefaultMarkerVar holds MarkerValue in every tethered process.
	DefaultMarkerVar = "TETHER"
	// DefaultNameVar holds the name given to the run.
	DefaultNameVar = "TETHER_NAME"
	// SupervisorVar holds "PID:START" of the process whose death strands
	// the tethered one.
	SupervisorVar = "TETHER_SUPERVISOR"
	// RunIDVar holds the 32-hex-digit id of the run.
	RunIDVar = "TETHER_RUN_ID"
	// MarkerValue is the only value of the marker variable that counts.
	MarkerValue = "1"
)

// Markers names the two variables that identify a tethered process. The
// zero value means the protocol's own, TETHER and TETHER_NAME; other
// supervisors' schemes (SYSTEMPROMPT_SUBPROCESS and MCP_SERVICE_ID, say)
// are recognised by naming their variables here.
type Markers struct {
	MarkerVar string
	NameVar   string
}

// DefaultMarkers are the protocol's own variables.
var DefaultMarkers = Markers{MarkerVar: DefaultMarkerVar, NameVar: DefaultNameVar}

func (m Markers) orDefault() Markers {
	if m.MarkerVar == "" {
		m.MarkerVar = DefaultMarkerVar
	}
	if m.NameVar == "" {
		m.NameVar = DefaultNameVar
	}
	return m
}

// Validate reports whether both variable names can stand in an
// environment: non-empty, no '=' and no NUL, and distinct from each other.
func (m Markers) Validate() error {
	m = m.orDefault()
	if err := ValidateVarName(m.MarkerVar); err != nil {
		return fmt.Errorf("marker variable: %w", err)
	}
	if err := ValidateVarName(m.NameVar); err != nil {
		return fmt.Errorf("name variable: %w", err)
	}
	if m.MarkerVar == m.NameVar {
		return fmt.Errorf("marker and name variable are both %q", m.MarkerVar)
	}
	return nil
}

// ValidateVarName accepts the names a shell can export: a letter or '_',
// then letters, digits and '_'.
func ValidateVarName(key string) error {
	if key == "" {
		return errors.New("empty variable name")
	}
	for i := 0; i < len(key); i++ {
		c := key[i]
		ok := c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (i > 0 && c >= '0' && c <= '9')
		if !ok {
			return fmt.Errorf("invalid variable name %q: want a letter or _ then letters, digits or _", key)
		}
	}
	return nil
}

// Stamp is what tether writes into a child's environment.
type Stamp struct {
	Name       string
	Supervisor Supervisor
	RunID      string
}

// Environ returns env with the stamp applied: earlier entries of the
// stamp's four variables are dropped (a nested run re-stamps its child)
// and the new ones appended. env itself is not modified.
func (m Markers) Environ(env []string, s Stamp) []string {
	m = m.orDefault()
	keys := [...]string{m.MarkerVar, m.NameVar, SupervisorVar, RunIDVar}
	out := make([]string, 0, len(env)+len(keys))
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if k == keys[0] || k == keys[1] || k == keys[2] || k == keys[3] {
			continue
		}
		out = append(out, kv)
	}
	return append(out,
		m.MarkerVar+"="+MarkerValue,
		m.NameVar+"="+s.Name,
		SupervisorVar+"="+s.Supervisor.String(),
		RunIDVar+"="+s.RunID,
	)
}

// Match reports whether env is tethered: it holds the exact entry
// MARKER=1 and, when name is not empty, the exact entry NAME_VAR=name.
// Entries are compared whole, one by one, as the original design does, so
// "TETHER=1 " or "TETHER_NAME=files2" never match "TETHER=1" or "files".
func (m Markers) Match(env []string, name string) bool {
	m = m.orDefault()
	if !HasEntry(env, m.MarkerVar+"="+MarkerValue) {
		return false
	}
	return name == "" || HasEntry(env, m.NameVar+"="+name)
}

// HasEntry reports whether env holds entry whole ("KEY=VALUE").
func HasEntry(env []string, entry string) bool {
	for _, kv := range env {
		if kv == entry {
			return true
		}
	}
	return false
}

// Lookup returns the value of the first entry of key in env.
func Lookup(env []string, key string) (string, bool) {
	for _, kv := range env {
		if len(kv) > len(key) && kv[len(key)] == '=' && kv[:len(key)] == key {
			return kv[len(key)+1:], true
		}
	}
	return "", false
}

// mismatch explains why Match(env, name) is false.
func (m Markers) mismatch(env []string, name string) string {
	m = m.orDefault()
	if !HasEntry(env, m.MarkerVar+"="+MarkerValue) {
		if v, ok := Lookup(env, m.MarkerVar); ok {
			return fmt.Sprintf("%s=%q, not %q", m.MarkerVar, v, MarkerValue)
		}
		return fmt.Sprintf("no %s=%s in its environment", m.MarkerVar, MarkerValue)
	}
	if v, ok := Lookup(env, m.NameVar); ok {
		return fmt.Sprintf("%s=%q, not %q", m.NameVar, v, name)
	}
	return fmt.Sprintf("no %s in its environment (want %q)", m.NameVar, name)
}

// EnvMatcher is Match prepared for raw environment blobs, for scans over
// every process where splitting each blob into strings would dominate.
type EnvMatcher struct {
	marker, name []byte
}

// Matcher prepares Match(_, name) for raw /proc/PID/environ blobs.
func (m Markers) Matcher(name string) EnvMatcher {
	m = m.orDefault()
	e := EnvMatcher{marker: []byte(m.MarkerVar + "=" + MarkerValue)}
	if name != "" {
		e.name = []byte(m.NameVar + "=" + name)
	}
	return e
}

// Match reports what Markers.Match(ParseEnviron(blob), name) does, without
// allocating: only NUL-terminated entries count, compared whole.
func (e EnvMatcher) Match(blob []byte) bool {
	marker, name := false, e.name == nil
	for !(marker && name) {
		i := bytes.IndexByte(blob, 0)
		if i < 0 {
			return false
		}
		entry := blob[:i]
		blob = blob[i+1:]
		marker = marker || bytes.Equal(entry, e.marker)
		name = name || bytes.Equal(entry, e.name)
	}
	return true
}
