package marker

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Markers names the two variables that identify a tethered process. The
// zero value means the protocol's own, [DefaultMarkerVar] and
// [DefaultNameVar]; other supervisors' schemes (SYSTEMPROMPT_SUBPROCESS
// and MCP_SERVICE_ID, say) are recognised by naming their variables here.
// The other variables (SupervisorVar, RunIDVar, PIDNamespaceVar) are the
// protocol's own under every scheme.
type Markers struct {
	MarkerVar string // must hold MarkerValue; default DefaultMarkerVar
	NameVar   string // holds the name; default DefaultNameVar
}

// WithDefaults returns m with each empty variable name replaced by the
// protocol's own, the names every method of m reads.
func (m Markers) WithDefaults() Markers {
	if m.MarkerVar == "" {
		m.MarkerVar = DefaultMarkerVar
	}
	if m.NameVar == "" {
		m.NameVar = DefaultNameVar
	}
	return m
}

// Validate reports whether both variable names (after [Markers.WithDefaults])
// can stand in an environment as a shell would export them, and are
// distinct, and none of the protocol's other variables, which mean the
// same under every scheme. The error names the bad variable.
func (m Markers) Validate() error {
	m = m.WithDefaults()
	if err := validateVarName(m.MarkerVar); err != nil {
		return fmt.Errorf("marker variable: %w", err)
	}
	if err := validateVarName(m.NameVar); err != nil {
		return fmt.Errorf("name variable: %w", err)
	}
	if m.MarkerVar == m.NameVar {
		return fmt.Errorf("marker and name variable are both %q", m.MarkerVar)
	}
	for _, v := range []string{m.MarkerVar, m.NameVar} {
		if v == SupervisorVar || v == RunIDVar || v == PIDNamespaceVar {
			return fmt.Errorf("%s is a variable of the marker protocol itself, not a marker or name", v)
		}
	}
	return nil
}

// validateVarName accepts the names a shell can export: a letter or '_',
// then letters, digits and '_'.
func validateVarName(key string) error {
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

// Environ returns env with the stamp applied: earlier entries of the
// stamp's variables are dropped (a nested run re-stamps its child, which
// must carry its nearest supervisor's values alone: a reader takes the
// first entry of a variable) and the new ones appended. env itself is not
// modified.
func (m Markers) Environ(env []string, s Stamp) []string {
	m = m.WithDefaults()
	keys := [...]string{m.MarkerVar, m.NameVar, SupervisorVar, RunIDVar, PIDNamespaceVar}
	out := make([]string, 0, len(env)+len(keys))
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if slices.Contains(keys[:], k) {
			continue
		}
		out = append(out, kv)
	}
	out = append(out,
		m.MarkerVar+"="+MarkerValue,
		m.NameVar+"="+s.Name,
		SupervisorVar+"="+s.Supervisor.String(),
		RunIDVar+"="+s.RunID,
	)
	if s.PIDNamespace != 0 {
		out = append(out, PIDNamespaceVar+"="+strconv.FormatUint(s.PIDNamespace, 10))
	}
	return out
}

// Entries are the whole entries an environment must hold to be tethered
// (under name, when it is not empty): MARKER=1 and NAME_VAR=name. A scan
// over raw environments looks for exactly these, with no parsing.
func (m Markers) Entries(name string) []string {
	m = m.WithDefaults()
	entries := []string{m.MarkerVar + "=" + MarkerValue}
	if name != "" {
		entries = append(entries, m.NameVar+"="+name)
	}
	return entries
}

// Match reports whether env is tethered: it holds every one of
// [Markers.Entries]. Entries are compared whole, one by one, so
// "TETHER=1 " or "TETHER_NAME=files2" never match "TETHER=1" or "files".
func (m Markers) Match(env []string, name string) bool {
	for _, e := range m.Entries(name) {
		if !slices.Contains(env, e) {
			return false
		}
	}
	return true
}
