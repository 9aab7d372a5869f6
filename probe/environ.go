package probe

import (
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

// mismatch is why m.Match(env, name) is false.
func mismatch(m marker.Markers, env []string, name string) Why {
	m = m.WithDefaults()
	if !marked(m, env) {
		if v, ok := lookup(env, m.MarkerVar); ok {
			return Why{Kind: WrongMarker, Var: m.MarkerVar, Value: v, Want: marker.MarkerValue}
		}
		return Why{Kind: NoMarker, Var: m.MarkerVar, Want: marker.MarkerValue}
	}
	if v, ok := lookup(env, m.NameVar); ok {
		return Why{Kind: WrongName, Var: m.NameVar, Value: v, Want: name}
	}
	return Why{Kind: NoName, Var: m.NameVar, Want: name}
}
