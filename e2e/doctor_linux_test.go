package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tetherproc/tether/internal/doctor"
)

// tether doctor says what this machine allows, one line each, or as JSON,
// and exits 0 whatever it finds; an argument is bad usage.
func TestDoctor(t *testing.T) {
	r := tether(t, nil, "doctor", "--json")
	var fs []doctor.Finding
	if err := json.Unmarshal([]byte(r.stdout), &fs); err != nil || r.code != 0 {
		t.Fatalf("doctor --json: exit %d, %v, %q; want exit 0 and a JSON array", r.code, err, r.stdout)
	}
	names := map[string]doctor.Finding{}
	for _, f := range fs {
		names[f.Name] = f
	}
	for _, want := range []string{"parent-death signal", "pidfd", "child subreaper", "cgroup v2", "user namespaces", "PID namespaces", "/proc", "ulimit -u"} {
		if _, ok := names[want]; !ok {
			t.Errorf("doctor --json has no finding %q: %+v", want, fs)
		}
	}
	if f := names["parent-death signal"]; !f.OK {
		t.Errorf("parent-death signal: %+v; want it found on Linux", f)
	}
	text := tether(t, nil, "doctor")
	if text.code != 0 || strings.Count(text.stdout, "\n") != len(fs) {
		t.Errorf("doctor: exit %d, %q; want exit 0 and one line per finding (%d)", text.code, text.stdout, len(fs))
	}
	wantUsage(t, tether(t, nil, "doctor", "extra"), "extra")
	if f := names["static binary"]; !f.OK {
		t.Errorf("static binary: %+v; want the tether the tests built (CGO_ENABLED=0) found static", f)
	}
}

// A tether built with cgo and linked against the C library is named by
// doctor as a problem, with the build setting that fixes it.
func TestDoctorNamesDynamicBinary(t *testing.T) {
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("no C compiler (gcc): no dynamically linked tether can be built here")
	}
	bin := filepath.Join(t.TempDir(), "tether")
	build := exec.Command("go", "build", "-ldflags", "-linkmode external", "-o", bin, "github.com/tetherproc/tether")
	build.Env = append(os.Environ(), "CGO_ENABLED=1")
	if out, err := build.CombinedOutput(); err != nil {
		t.Skipf("no dynamically linked tether could be built here: %v: %s", err, out)
	}
	out, err := exec.Command(bin, "doctor").Output()
	if err != nil || !strings.Contains(string(out), "dynamically linked") || !strings.Contains(string(out), "CGO_ENABLED=0") {
		t.Errorf("doctor of a dynamically linked tether: %v, %q; want it named, with CGO_ENABLED=0", err, out)
	}
}
