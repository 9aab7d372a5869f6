package probe

import (
	"fmt"
	"slices"

	"github.com/tetherproc/tether/marker"
)

// lookup returns the value of the first entry of key in env, the one a
// process's own getenv would find.
func lookup(env []string, key string) (string, bool) {
	for _, kv := range env {
		if len(kv) > len(key) && kv[len(key)] == '=' && kv[:len(key)] == key {
			return kv[len(key)+1:], true
		}
	}
	return "", false
}

// marked reports whether env holds m's marker entry (MARKER=1), whatever
// its name: a process that carries it was tethered under some name.
func marked(m marker.Markers, env []string) bool {
	return slices.Contains(env, m.Entries("")[0])
}

// mismatch explains why m.Match(env, name) is false.
func mismatch(m marker.Markers, env []string, name string) string {
	m = m.WithDefaults()
	if !marked(m, env) {
		if v, ok := lookup(env, m.MarkerVar); ok {
			return fmt.Sprintf("%s=%q, not %q", m.MarkerVar, v, marker.MarkerValue)
		}
		return fmt.Sprintf("no %s=%s in its environment", m.MarkerVar, marker.MarkerValue)
	}
	if v, ok := lookup(env, m.NameVar); ok {
		return fmt.Sprintf("%s=%q, not %q", m.NameVar, v, name)
	}
	return fmt.Sprintf("no %s in its environment (want %q)", m.NameVar, name)
}
