package lsof

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// Path prefers Apple's place and falls back on PATH; where there is no
// lsof at all, it says so.
func TestPath(t *testing.T) {
	p, err := Path()
	if _, serr := os.Stat(appleLsof); serr == nil {
		if p != appleLsof {
			t.Errorf("Path() = %q, want %s, where Apple installs it", p, appleLsof)
		}
		return
	}
	if _, lerr := exec.LookPath("lsof"); lerr != nil {
		if err == nil {
			t.Errorf("Path() = %q with no lsof anywhere, want an error", p)
		}
		return
	}
	if err != nil || p == "" {
		t.Errorf("Path() = %q, %v; want the lsof in PATH", p, err)
	}
}

// Output runs it with -b -w: lsof of this process's own descriptors
// names this PID.
func TestOutput(t *testing.T) {
	if _, err := Path(); err != nil {
		t.Skip(err)
	}
	out, err := Output("-nP", "-F", "p", "-p", strconv.Itoa(os.Getpid()))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "p"+strconv.Itoa(os.Getpid())) {
		t.Errorf("lsof of own PID printed %q, want p%d", out, os.Getpid())
	}
}
