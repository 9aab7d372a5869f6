package probe

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tetherproc/tether/marker"
	"github.com/tetherproc/tether/procid"
)

// The variables of the marker protocol, v1. Every process tether starts
// carries all four, and every process it starts in turn inherits them.
const (
	// DefaultMarkerVar holds "1" in every tethered process.
	DefaultMarkerVar = marker.Var
	// DefaultNameVar holds the name given to the run.
	DefaultNameVar = marker.NameVar
	// SupervisorVar holds "PID:START" of the process whose death strands
	// the tethered one: a [procid.ID].
	SupervisorVar = marker.SupervisorVar
	// RunIDVar holds the id of the run: 32 lowercase hex digits,
	// random per run.
	RunIDVar = marker.RunIDVar
	// PIDNamespaceVar holds the inode number of the PID namespace in
	// which the PID of SupervisorVar is to be read (as in
	// /proc/PID/ns/pid, "pid:[N]"). It is optional: without it the
	// supervisor's PID is read in the tethered process's own namespace.
	PIDNamespaceVar = marker.PIDNamespaceVar
)

// markerValue is the only value of the marker variable that counts.
const markerValue = "1"

// Markers names the two variables that identify a tethered process. The
// zero value means the protocol's own, [DefaultMarkerVar] and
// [DefaultNameVar]; other supervisors' schemes (SYSTEMPROMPT_SUBPROCESS
// and MCP_SERVICE_ID, say) are recognised by naming their variables here.
type Markers struct {
	MarkerVar string // must hold "1"; default DefaultMarkerVar
	NameVar   string // holds the name; default DefaultNameVar
}

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
// environment as a shell would export them, and are distinct.
func (m Markers) Validate() error {
	m = m.orDefault()
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

// Stamp is what a supervisor writes into its child's environment with
// [Markers.Environ].
type Stamp struct {
	Name       string    // see [Stamp.Validate]
	Supervisor procid.ID // the process whose death strands the child, as SupervisorVar names it
	RunID      string    // see [Stamp.Validate]
	// PIDNamespace is the supervisor's PID namespace; 0 leaves
	// PIDNamespaceVar out.
	PIDNamespace uint64
}

// Validate checks the values of s that are set, naming a bad one: Name,
// 1 to 64 characters of A-Z a-z 0-9 . _ - (so that it can stand in an
// environment entry, a file name and a log line as is), and RunID,
// exactly 32 lowercase hex digits (random per run).
func (s Stamp) Validate() error {
	if s.Name != "" {
		if err := validateName(s.Name); err != nil {
			return err
		}
	}
	if s.RunID != "" {
		return validateRunID(s.RunID)
	}
	return nil
}

// Environ returns env with the stamp applied: earlier entries of the
// stamp's variables are dropped (a nested run re-stamps its child) and the
// new ones appended. env itself is not modified.
func (m Markers) Environ(env []string, s Stamp) []string {
	m = m.orDefault()
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
		m.MarkerVar+"="+markerValue,
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
// over raw environments looks for exactly these.
func (m Markers) Entries(name string) []string {
	m = m.orDefault()
	entries := []string{m.MarkerVar + "=" + markerValue}
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
		if !hasEntry(env, e) {
			return false
		}
	}
	return true
}

func hasEntry(env []string, entry string) bool {
	for _, kv := range env {
		if kv == entry {
			return true
		}
	}
	return false
}

// lookup returns the value of the first entry of key in env.
func lookup(env []string, key string) (string, bool) {
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
	if !hasEntry(env, m.MarkerVar+"="+markerValue) {
		if v, ok := lookup(env, m.MarkerVar); ok {
			return fmt.Sprintf("%s=%q, not %q", m.MarkerVar, v, markerValue)
		}
		return fmt.Sprintf("no %s=%s in its environment", m.MarkerVar, markerValue)
	}
	if v, ok := lookup(env, m.NameVar); ok {
		return fmt.Sprintf("%s=%q, not %q", m.NameVar, v, name)
	}
	return fmt.Sprintf("no %s in its environment (want %q)", m.NameVar, name)
}
