//go:build linux

package e2e

import (
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// PostgreSQL as its users start it by hand, under --forking: pg_ctl
// start daemonizes the postmaster and returns; tether keeps the server
// supervised (its backends write their titles over their environment),
// tether wait --pid sees it ready, and TERM to tether shuts it down. In
// the long mode: initdb takes seconds.
func TestServerPostgres(t *testing.T) {
	stress(t)
	if os.Getuid() != 0 {
		t.Skip("needs root: PostgreSQL refuses to run as root, so it runs as its own user")
	}
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pg_ctl")
	if len(bins) == 0 {
		t.Skip("no PostgreSQL (/usr/lib/postgresql/*/bin/pg_ctl): apt-get install postgresql")
	}
	pgCtl := bins[len(bins)-1]
	u, err := user.Lookup("postgres")
	if err != nil {
		t.Skip("no postgres user:", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	cred := &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	tmp := sharedTemp(t)
	data := filepath.Join(tmp, "data")
	initdb := exec.Command(filepath.Join(filepath.Dir(pgCtl), "initdb"), "-D", data, "-A", "trust", "-U", "postgres")
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	initdb.Env = []string{"PATH=/usr/bin:/bin", "LANG=C"}
	if out, err := initdb.CombinedOutput(); err != nil {
		t.Fatalf("initdb: %v: %s", err, out)
	}
	port := freePort(t, "tcp")
	name := serverName("postgres")
	start := time.Now()
	r := startAs(t, cred, tetherBin, []string{"TMPDIR=" + tmp, "XDG_RUNTIME_DIR="}, "run", "--forking", "--name", name, "--",
		pgCtl, "-D", data, "-l", filepath.Join(tmp, "log"), "-w",
		"-o", "-p "+port+" -k "+tmp+" -c listen_addresses=127.0.0.1", "start")
	tpid := r.cmd.Process.Pid
	hs := waitServing(t, port, tpid, "postgres under --forking")
	t.Logf("postgres serving %v after tether started it", time.Since(start).Round(time.Millisecond))
	for _, h := range hs {
		out, code := tetherAs(t, cred, []string{"TMPDIR=" + tmp, "XDG_RUNTIME_DIR="}, "check", "--name", name, strconv.Itoa(h.PID))
		if code != 0 || !strings.Contains(out, "supervised") {
			t.Errorf("check of the postmaster %d as postgres: exit %d %q; want supervised", h.PID, code, out)
		}
	}
	if err := r.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	stopped := time.Now()
	if code := r.wait(t); code != 0 {
		t.Errorf("tether after TERM: exit %d, want 0 (the postmaster's own, a clean shutdown)", code)
	}
	wantFree(t, port, "after TERM to tether")
	t.Logf("port free %v after TERM to tether", time.Since(stopped).Round(time.Millisecond))
	wantEnded(t, membersOf(hs), "the postmaster after TERM to tether")
}
