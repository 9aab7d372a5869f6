package proctest

import (
	"strings"
	"testing"
)

// forget removes what a test registered, which no other test may see.
func forget(t *testing.T, names ...string) {
	t.Cleanup(func() {
		modes.Lock()
		defer modes.Unlock()
		for _, name := range names {
			delete(modes.byName, name)
			delete(modes.used, name)
		}
	})
}

func wantPanic(t *testing.T, what, want string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		if s, _ := r.(string); !strings.Contains(s, want) {
			t.Errorf("%s: panic %v, want one saying %q", what, r, want)
		}
	}()
	f()
}

func TestRegisterTwicePanics(t *testing.T) {
	forget(t, "test-twice")
	if got := Register("test-twice", func() {}); got != "test-twice" {
		t.Errorf("Register returned %q, want the name", got)
	}
	wantPanic(t, "the same name again", "registered twice", func() { Register("test-twice", func() {}) })
	wantPanic(t, "a built-in mode's name", "registered twice", func() { Register(Wait, func() {}) })
}

func TestModeOfUnregisteredPanics(t *testing.T) {
	wantPanic(t, "Mode", "no helper mode", func() { Mode("test-nowhere") })
	wantPanic(t, "MaySkip", "no helper mode", func() { MaySkip("test-nowhere") })
	wantPanic(t, "Starts", "no helper mode", func() { Starts(Wait, "test-nowhere") })
}

// A mode counts as started when a test builds its environment, and so do
// the modes it starts, however deep; the built-in modes are never
// reported.
func TestUnusedModes(t *testing.T) {
	forget(t, "test-top", "test-mid", "test-leaf", "test-alone")
	Register("test-leaf", func() {})
	Starts(Register("test-mid", func() {}), "test-leaf")
	Starts(Register("test-top", func() {}), "test-mid")
	Register("test-alone", func() {})
	unused := func() string {
		var out []string
		for _, name := range unusedModes() {
			if strings.HasPrefix(name, "test-") {
				out = append(out, name)
			}
		}
		return strings.Join(out, " ")
	}
	if got := unused(); got != "test-alone test-leaf test-mid test-top" {
		t.Errorf("before any start: unused %q, want every registered one", got)
	}
	if got := Mode("test-top"); got != ModeVar+"=test-top" {
		t.Errorf("Mode = %q, want %s=test-top", got, ModeVar)
	}
	if got := unused(); got != "test-alone" {
		t.Errorf("after test-top: unused %q, want test-alone alone: what test-top starts counts as started", got)
	}
	MaySkip("test-alone")
	if got := unused(); got != "" {
		t.Errorf("after MaySkip: unused %q, want none", got)
	}
}
