package e2e

import (
	"strconv"
	"strings"
	"testing"
)

// tether free PORT, as kill-port is typed: the holder tether did not
// start is ended, the port is free (exit 0), and a client connected to
// the port lives on. reclaim PORT first names it, and says in one line
// that tether free ends it.
func TestFreePort(t *testing.T) {
	server, port := startListener(t, nil)
	client := startClient(t, port)

	r := tether(t, nil, "reclaim", port)
	if r.code != 1 || !strings.Contains(r.stdout, "port "+port+": held by PID "+strconv.Itoa(server.PID())) ||
		r.stderr != "tether reclaim: a process tether did not start holds port "+port+": tether free "+port+" ends it (its listeners only)\n" {
		t.Errorf("reclaim %s: %+v; want exit 1, the holder named, and tether free %s said in one line", port, r, port)
	}
	wantRunning(t, server, "the foreign holder, after reclaim PORT")

	r = tether(t, nil, "free", "--dry-run", port)
	if r.code != 0 || !strings.Contains(r.stdout, strconv.Itoa(server.PID())+" (foreign): would be signalled") {
		t.Errorf("free --dry-run %s: %+v; want exit 0 and the holder that would be signalled", port, r)
	}
	wantRunning(t, server, "the foreign holder, after a dry run")

	r = tether(t, nil, "free", port)
	if r.code != 0 || !strings.Contains(r.stdout, "port "+port+": free") {
		t.Errorf("free %s: %+v; want exit 0 and the port free", port, r)
	}
	<-server.Done()
	wantRunning(t, client, "the client connected to the port")
}

// The first tries of a kill-port, fkill or fuser user each answer in one
// line with the command that does it; nothing is signalled.
func TestFreeFirstTries(t *testing.T) {
	server, port := startListener(t, nil)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"kill", port}, `tether: unknown command "kill": to free port ` + port + `, whatever holds it: tether free ` + port},
		{[]string{"reclaim", "-p", port, "--force"}, "tether reclaim: unknown flag --force: to end a port's holder that tether did not start: tether free PORT"},
		{[]string{"reclaim", "-f", "-p", port}, "tether reclaim: unknown flag -f: to end a port's holder that tether did not start: tether free PORT"},
		{[]string{"free", port, "--dry-run"}, "tether free: flags go before the ports: tether free --dry-run " + port},
		{[]string{"free"}, "tether free: no port"},
		{[]string{"free", "0"}, `tether free: invalid port "0"`},
	} {
		r := tether(t, nil, c.args...)
		if r.code != exitUsage || !strings.HasPrefix(r.stderr, c.want) || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("tether %s: exit %d, %q; want %d and one line starting %q", strings.Join(c.args, " "), r.code, r.stderr, exitUsage, c.want)
		}
	}
	wantRunning(t, server, "the holder, after the first tries")
}

// tether -- CMD is tether run -- CMD, as tini is typed.
func TestTetherDashDash(t *testing.T) {
	r := tether(t, nil, "--", "/bin/sh", "-c", `test "$TETHER" = 1 && exit 3`)
	if r.code != 3 {
		t.Errorf("tether -- sh -c ...: exit %d (%q); want the command's 3, stamped", r.code, r.stderr)
	}
}
