package e2e

import (
	"regexp"
	"strings"
	"testing"

	"github.com/tetherproc/tether/marker"
)

// TETHER_DEBUG=1 and --debug print one line per decision on stderr, each
// prefixed tether[PID]:; without them nothing extra is printed.
func TestTraceSwitch(t *testing.T) {
	run := []string{"run", "--grace", "2s", "--", "/bin/sh", "-c", "sleep 1 & exit 3"}
	if r := tether(t, nil, run...); r.code != 3 || r.stderr != "" {
		t.Errorf("without tracing: exit %d, stderr %q; want 3 and nothing", r.code, r.stderr)
	}
	prefix := regexp.MustCompile(`^tether\[[0-9]+\]: `)
	for _, c := range []struct {
		name string
		env  []string
		args []string
	}{
		{"TETHER_DEBUG=1", []string{"TETHER_DEBUG=1"}, run},
		{"--debug", nil, append([]string{"--debug"}, run...)},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := tether(t, c.env, c.args...)
			if r.code != 3 {
				t.Errorf("exit %d, want 3 (stderr %q)", r.code, r.stderr)
			}
			for _, line := range strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n") {
				if !prefix.MatchString(line) {
					t.Errorf("trace line %q: want the prefix tether[PID]: ", line)
				}
			}
			wants := []string{"watchdog", "started /bin/sh as", "ended: exit status 3", ": TERM to "}
			if !portable {
				wants = append(wants, "reaped orphan") // no subreaper on the portable path
			}
			for _, want := range wants {
				if !strings.Contains(r.stderr, want) {
					t.Errorf("trace %q: want a line with %q", r.stderr, want)
				}
			}
		})
	}
	r := tether(t, []string{"TETHER_DEBUG=1"}, "reclaim", "--dry-run", "--run-id", marker.NewRunID())
	if r.code != 0 || !strings.Contains(r.stderr, "scan for") || !strings.Contains(r.stdout, "nothing to reclaim") {
		t.Errorf("reclaim --dry-run traced: exit %d, stdout %q, stderr %q; want 0, nothing to reclaim, and the scan traced", r.code, r.stdout, r.stderr)
	}
}
