package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tetherproc/tether/internal/proctest"
	"github.com/tetherproc/tether/marker"
)

// Every command that takes ports takes them as users type them: -p,
// ranges, lists, the flag again; a port given twice counts once, in the
// order first given.
func TestPortArguments(t *testing.T) {
	p, _ := strconv.Atoi(freePort(t, "tcp"))
	q, _ := strconv.Atoi(freePort(t, "tcp"))
	if p > 65533 || q == p {
		t.Skipf("ports %d and %d leave no room for a range", p, q)
	}
	rng := strconv.Itoa(p) + "-" + strconv.Itoa(p+2)
	for _, flag := range []string{"-p", "--port"} {
		w := decodeWait(t, tether(t, nil, "wait", "--free", "--json", flag, rng+","+strconv.Itoa(q), flag, strconv.Itoa(p), flag, strconv.Itoa(p+1), "--timeout", "0"))
		var got []int
		for _, r := range w.Ports {
			got = append(got, r.Port)
		}
		if want := []int{p, p + 1, p + 2, q}; !slices.Equal(got, want) {
			t.Errorf("wait with %s %s,%d, %d and %d: ports %v; want %v", flag, rng, q, p, p+1, got, want)
		}
	}
	// urfave/cli v2 takes one form of a flag per command line.
	wantUsage(t, tether(t, nil, "wait", "-p", strconv.Itoa(p), "--port", strconv.Itoa(q)), "-p and --port")
	port := strconv.Itoa(q)
	if r := tether(t, nil, "ps", "-p", port); r.code != 0 {
		t.Errorf("ps -p %s: %+v; want exit 0", port, r)
	}
	if r := tether(t, nil, "reclaim", "--dry-run", "-p", port); r.code == exitUsage {
		t.Errorf("reclaim --dry-run -p %s: %+v; want it taken", port, r)
	}
	if r := tether(t, nil, "run", "-p", port, "--", "true"); r.code != 0 {
		t.Errorf("run -p %s -- true: %+v; want exit 0", port, r)
	}
	if r := tether(t, nil, "wait", "-p", port, "--timeout", "0"); r.code != 1 || !strings.Contains(r.stderr, "no listener on port "+port) {
		t.Errorf("wait -p %s on a free port: %+v; want exit 1 naming it", port, r)
	}
}

// A bad port, range or list is bad usage on every command that takes
// ports: one line naming it, exit 125, nothing started and nothing
// signalled, though a stranded tethered process holds a port that is
// named too.
func TestPortArgumentsBad(t *testing.T) {
	sup, err := proctest.SupervisorOf(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	sup.StartTime++ // the test's PID with another start time: a supervisor gone
	env := (marker.Markers{}).Environ(nil, marker.Stamp{Name: "held", Supervisor: sup, RunID: marker.NewRunID()})
	pr, pw := pipe(t)
	holder := proctest.Start(t, modeListen, proctest.Spec{Env: append(env, "PROCTEST_LISTEN=tcp4"), Stdout: pw})
	pw.Close()
	held := proctest.ReadLine(t, pr)
	mark := filepath.Join(t.TempDir(), "started")
	for _, bad := range []struct{ value, named string }{
		{"0", `"0"`},
		{"70000", `"70000"`},
		{"abc", `"abc"`},
		{"-1", `"-1"`},
		{"3005-3000", `"3005-3000"`},
		{"3000-", `"3000-"`},
		{"1-65535", "4096"},
		{held + ",abc", `"abc"`},
		{held + "-0", `"` + held + `-0"`},
	} {
		for _, args := range [][]string{
			{"reclaim", "-p", bad.value},
			{"reclaim", "--all", "--port", held, "--port", bad.value},
			{"ps", "-p", bad.value},
			{"wait", "-p", bad.value},
			{"run", "-p", bad.value, "--", "touch", mark},
			{"run", "--port", held, "--port", bad.value, "--", "touch", mark},
		} {
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				wantUsage(t, tether(t, nil, args...), bad.named)
			})
		}
	}
	if _, err := os.Stat(mark); err == nil {
		t.Errorf("a run with a bad --port started its command")
	}
	if deadOrZombie(holder.PID()) {
		t.Errorf("the stranded holder %d of port %s was signalled by a command with a bad --port", holder.PID(), held)
	}
}
