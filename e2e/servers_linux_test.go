//go:build linux

package e2e

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tetherproc/tether/internal/kill"
	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/proctest"
	"github.com/tetherproc/tether/internal/ptree"
	"github.com/tetherproc/tether/probe"
	"github.com/tetherproc/tether/procid"
)

// The tests of this file drive the built binary against real servers of
// this machine: nginx (which renames its master and workers, and forks
// them as nobody when started as root), redis (which writes its title
// over its environment, and daemonizes on request) and node (an HTTP
// server, with a helper child that does not hold the port). Each one
// skips when its server is not installed. Every server's files are in
// the test's temporary directory, and its port is picked free.

// serverBin is the path of a server's program, or a skip saying it is
// not installed.
func serverBin(t *testing.T, name, fallback string) string {
	t.Helper()
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	if _, err := os.Stat(fallback); err == nil {
		return fallback
	}
	t.Skipf("no %s (neither on PATH nor at %s): this test drives the real server", name, fallback)
	return ""
}

// nginxArgs writes a minimal nginx.conf serving 127.0.0.1:port into dir
// and returns the command that runs it: in the foreground (daemon off,
// given on the command line), or in nginx's default daemon mode. As
// root its two workers run as nobody, the default user.
func nginxArgs(t *testing.T, dir, port string, foreground bool) []string {
	t.Helper()
	bin := serverBin(t, "nginx", "/usr/sbin/nginx")
	conf := fmt.Sprintf(`master_process on;
worker_processes 2;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log;
events { worker_connections 64; }
http {
	access_log off;
	client_body_temp_path %[1]s/body;
	proxy_temp_path %[1]s/proxy;
	fastcgi_temp_path %[1]s/fastcgi;
	uwsgi_temp_path %[1]s/uwsgi;
	scgi_temp_path %[1]s/scgi;
	server { listen 127.0.0.1:%[2]s; location / { return 200 "ok\n"; } }
}
`, dir, port)
	write(t, filepath.Join(dir, "nginx.conf"), conf)
	// -e: the error log before the configuration is read, which would
	// otherwise be the packaged one, which only root may write.
	args := []string{bin, "-p", dir, "-e", filepath.Join(dir, "error.log"), "-c", filepath.Join(dir, "nginx.conf")}
	if foreground {
		args = append(args, "-g", "daemon off;")
	}
	return args
}

// redisArgs is the command of a redis with no persistence, its files in
// dir, listening on 127.0.0.1:port, in the foreground or daemonized.
func redisArgs(t *testing.T, dir, port string, daemonize bool) []string {
	t.Helper()
	bin := serverBin(t, "redis-server", "/usr/bin/redis-server")
	args := []string{bin, "--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--dir", dir, "--logfile", filepath.Join(dir, "redis.log")}
	if daemonize {
		return append(args, "--daemonize", "yes", "--pidfile", filepath.Join(dir, "redis.pid"))
	}
	return append(args, "--daemonize", "no")
}

// nodeArgs writes script, with PORT replaced by port, into dir and
// returns the command that runs it with node.
func nodeArgs(t *testing.T, dir, port, script string) []string {
	t.Helper()
	bin := serverBin(t, "node", "/usr/bin/node")
	path := filepath.Join(dir, "server.js")
	write(t, path, strings.ReplaceAll(script, "PORT", port))
	return []string{bin, path}
}

// nodeHTTP is a plain node HTTP server.
const nodeHTTP = `require('http').createServer((q, s) => s.end('ok\n')).listen(PORT, '127.0.0.1');
`

// nodeDevServer is a dev server as users meet them: it starts a helper
// child that does not hold the port, and ignores TERM, so that it
// outlives its tether's death.
const nodeDevServer = `const {spawn} = require('child_process');
spawn('sleep', ['300'], {stdio: 'ignore'});
require('http').createServer((q, s) => s.end('ok\n')).listen(PORT, '127.0.0.1');
process.on('SIGTERM', () => {});
`

// foregroundServer is a real server that serves in the foreground.
type foregroundServer struct {
	name string
	args func(t *testing.T, dir, port string) []string
	// ignored is a signal the server ignores (nginx's master reopens
	// its logs on USR1, redis ignores HUP): given as the parent-death
	// signal, the server outlives its tether's SIGKILL, and is stranded.
	ignored string
}

var foregroundServers = []foregroundServer{
	{"nginx", func(t *testing.T, dir, port string) []string { return nginxArgs(t, dir, port, true) }, "USR1"},
	{"redis", func(t *testing.T, dir, port string) []string { return redisArgs(t, dir, port, false) }, "HUP"},
	{"node", func(t *testing.T, dir, port string) []string { return nodeArgs(t, dir, port, nodeHTTP) }, ""},
}

// shellLine is args quoted for sh.
func shellLine(args []string) string {
	var words []string
	for _, a := range args {
		if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=,") == "" {
			words = append(words, a)
		} else {
			words = append(words, "'"+strings.ReplaceAll(a, "'", `'\''`)+"'")
		}
	}
	return strings.Join(words, " ")
}

// holder is a process that holds a server's port, as tether wait names it.
type holder struct {
	procid.ID
	UID   int
	RunID string // its run's, when tether knows it
}

// waitServing waits (tether wait, with --pid when pid is not 0) until
// port has a listener, and returns its holders: the server's processes,
// with their start times. At cleanup, those still alive get SIGKILL (a
// renamed server carries no test id for the leak check to find it by).
func waitServing(t *testing.T, port string, pid int, what string) []holder {
	t.Helper()
	args := []string{"wait", "--port", port, "--timeout", "10s", "--json"}
	if pid != 0 {
		args = append(args, "--pid", strconv.Itoa(pid))
	}
	r := tether(t, nil, args...)
	if r.code != 0 {
		t.Fatalf("%s does not serve port %s: tether wait exit %d, %s %s", what, port, r.code, r.stdout, r.stderr)
	}
	var w struct {
		Ports []struct {
			Holders []struct {
				PID       int    `json:"pid"`
				UID       *int   `json:"uid"`
				StartTime uint64 `json:"start_time"`
				RunID     string `json:"run_id"`
			} `json:"holders"`
		} `json:"ports"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &w); err != nil || len(w.Ports) != 1 || len(w.Ports[0].Holders) == 0 {
		t.Fatalf("tether wait --json: %q (%v); want port %s and its holders", r.stdout, err, port)
	}
	var hs []holder
	for _, h := range w.Ports[0].Holders {
		st, err := proc.Host().Stat(h.PID)
		if err != nil {
			t.Fatalf("holder %d of port %s: %v", h.PID, port, err)
		}
		uid := -1
		if h.UID != nil {
			uid = *h.UID
		}
		hs = append(hs, holder{procid.ID{PID: h.PID, StartTime: st.StartTime}, uid, h.RunID})
	}
	t.Cleanup(func() {
		for _, h := range hs {
			_ = kill.Signal(h.ID, syscall.SIGKILL)
		}
	})
	return hs
}

func membersOf(hs []holder) []procid.ID {
	var ms []procid.ID
	for _, h := range hs {
		ms = append(ms, h.ID)
	}
	return ms
}

func wantAlive(t *testing.T, ms []procid.ID, what string) {
	t.Helper()
	for _, m := range ms {
		if st, err := proc.Host().Stat(m.PID); err != nil || st.StartTime != m.StartTime || st.Zombie() {
			t.Fatalf("%s: %d is gone, want it running", what, m.PID)
		}
	}
}

// untilFree polls port until a connection to it is refused, and returns
// how long that took since since: the figure a user waits for.
func untilFree(t *testing.T, port string, since time.Time, what string) time.Duration {
	t.Helper()
	deadline := since.Add(10 * time.Second)
	for {
		c, err := net.DialTimeout("tcp4", "127.0.0.1:"+port, time.Second)
		if err == nil {
			c.Close()
		} else if errors.Is(err, syscall.ECONNREFUSED) {
			return time.Since(since)
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: port %s still accepts connections 10s later", what, port)
		}
		time.Sleep(time.Millisecond)
	}
}

// wantFree asks tether itself whether nothing holds port any more.
func wantFree(t *testing.T, port, what string) {
	t.Helper()
	if r := tether(t, nil, "wait", "--port", port, "--free", "--timeout", "10s"); r.code != 0 {
		t.Errorf("%s: tether wait --port %s --free: exit %d, %s %s; want the port free", what, port, r.code, r.stdout, r.stderr)
	}
}

// wantNothingLeft waits until no process carries the test's id.
func wantNothingLeft(t *testing.T, what string) {
	t.Helper()
	id := proctest.TestID(t)
	proctest.Eventually(t, what+": every process of the test gone", func() bool {
		left, unsettled := proctest.Alive(id)
		return len(left) == 0 && !unsettled
	})
}

// strandRun leaves the run of tr stranded with the repository's strand:
// its watchdog stopped, tether killed with SIGKILL, then the watchdog.
// What is left is a server that ignored its parent-death signal.
func strandRun(t *testing.T, tr *running) {
	t.Helper()
	needFull(t, "strands a run by stopping the watchdog the full path starts")
	strand(t, tr.cmd.Process.Pid, func() {
		if err := tr.cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		tr.wait(t)
	})
}

// serverName is a run name of this test alone, so that --name selects
// nothing of another test's.
func serverName(server string) string {
	return fmt.Sprintf("srv-%s-%d-%d", server, os.Getpid(), time.Now().UnixNano()%1_000_000)
}

// SIGKILL of whatever started a real server's tether (make, a script's
// { } & group, tether itself) frees the port and leaves nothing. The
// time from the SIGKILL to the port's refusing connections is logged.
func TestServerSIGKILLFreesPort(t *testing.T) {
	t.Parallel() // its own ports and runs; it waits more than it works
	type scenario struct {
		name   string
		caller func(t *testing.T, dir string, args []string) *exec.Cmd
	}
	scenarios := []scenario{
		{"make", func(t *testing.T, dir string, args []string) *exec.Cmd {
			if _, err := exec.LookPath("make"); err != nil {
				t.Skip("no make:", err)
			}
			line := "cd " + dir + " && " + tetherBin + " run -- " + shellLine(args)
			write(t, filepath.Join(dir, "Makefile"), "serve:\n\t"+strings.ReplaceAll(line, "$", "$$")+"\n")
			return exec.Command("make", "-s", "-C", dir, "serve")
		}},
		{"script group", func(t *testing.T, dir string, args []string) *exec.Cmd {
			script := filepath.Join(dir, "script.sh")
			write(t, script, "{ "+tetherBin+" run -- "+shellLine(args)+"; echo exited; } &\nwait\n")
			return exec.Command("/bin/sh", script)
		}},
		{"tether", func(t *testing.T, dir string, args []string) *exec.Cmd {
			return exec.Command(tetherBin, append([]string{"run", "--"}, args...)...)
		}},
	}
	var figures []string
	for _, srv := range foregroundServers {
		for _, sc := range scenarios {
			t.Run(srv.name+"/"+sc.name, func(t *testing.T) {
				dir := t.TempDir()
				port := freePort(t, "tcp")
				caller := sc.caller(t, dir, srv.args(t, dir, port))
				caller.Env = append(proctest.CleanEnv(), proctest.Env(t)...)
				// A file, not a pipe: the server inherits it, and a pipe
				// would hold Wait for as long as the server lives.
				logf, err := os.Create(filepath.Join(dir, "caller.log"))
				if err != nil {
					t.Fatal(err)
				}
				defer logf.Close()
				caller.Stdout, caller.Stderr = logf, logf
				if err := caller.Start(); err != nil {
					t.Fatal(err)
				}
				done := make(chan struct{})
				go func() { _ = caller.Wait(); close(done) }()
				t.Cleanup(func() {
					select {
					case <-done:
					default:
						_ = caller.Process.Kill()
						<-done
					}
				})
				hs := waitServing(t, port, 0, srv.name)
				killed := time.Now()
				if err := caller.Process.Kill(); err != nil {
					t.Fatal(err)
				}
				took := untilFree(t, port, killed, srv.name+" after SIGKILL of "+sc.name)
				figure := fmt.Sprintf("%s, SIGKILL of %s: port free %d ms after (%d holder(s))", srv.name, sc.name, took.Milliseconds(), len(hs))
				figures = append(figures, figure)
				t.Log(figure)
				select {
				case <-done:
				case <-time.After(10 * time.Second):
					t.Fatalf("%s %d not reaped 10s after SIGKILL", sc.name, caller.Process.Pid)
				}
				wantFree(t, port, srv.name)
				wantEnded(t, membersOf(hs), srv.name+" after SIGKILL of "+sc.name)
				wantNothingLeft(t, srv.name+" after SIGKILL of "+sc.name)
				if sc.name == "tether" {
					wantRecordPruned(t, hs)
				}
				if t.Failed() {
					out, _ := os.ReadFile(logf.Name())
					t.Logf("output of the caller: %s", out)
				}
			})
		}
	}
	t.Logf("ms from SIGKILL to the port free:\n\t%s", strings.Join(figures, "\n\t"))
}

// wantRecordPruned wants, as root, whose records are in /run/tether, the
// record of the holders' run gone once its tether was killed with
// SIGKILL: its watchdog, which ended the run, removes it as it finishes,
// which may be a moment after the last member went (tether ps, run
// meanwhile, prunes nothing).
func wantRecordPruned(t *testing.T, hs []holder) {
	t.Helper()
	if r := tether(t, nil, "ps"); r.code != 0 {
		t.Errorf("tether ps: %+v; want exit 0", r)
	}
	if os.Getuid() != 0 || hs[0].RunID == "" {
		return
	}
	path := filepath.Join("/run/tether", hs[0].RunID+".json")
	proctest.Eventually(t, "the record "+path+" of a run whose tether and members are gone to be removed by its watchdog", func() bool {
		_, err := os.Stat(path)
		return os.IsNotExist(err)
	})
}

// A server that writes its title over its environment (nginx's master and
// workers, redis) carries no markers a scan can read: it is known by its
// run's record. While its tether lives it is supervised, and reclaim
// --all ends it through its tether; stranded (its watchdog and then its
// tether killed, the parent-death signal ignored), ps lists it as
// stranded and reclaim --name ends it.
func TestServerRenamedByRecord(t *testing.T) {
	for _, srv := range foregroundServers {
		if srv.name == "node" {
			continue // node keeps its environment: its markers tell it
		}
		t.Run(srv.name+"/supervised", func(t *testing.T) {
			dir := t.TempDir()
			port := freePort(t, "tcp")
			name := serverName(srv.name)
			tr := startTether(t, nil, append([]string{"run", "--name", name, "--"}, srv.args(t, dir, port)...)...)
			hs := waitServing(t, port, tr.cmd.Process.Pid, srv.name)
			wantRenamed(t, hs)
			for _, h := range hs {
				// The record names the tree as its tether last wrote it
				// down (on a 250 ms tick): workers forked a moment ago
				// may not be in it yet.
				wantSupervisedByRecord(t, h.PID, name)
			}
			r := tether(t, nil, "reclaim", "--all", "--name", name, "--grace", "5s")
			if r.code != 0 {
				t.Errorf("reclaim --all --name %s: %+v; want exit 0", name, r)
			}
			code := tr.wait(t)
			t.Logf("tether exited %d after reclaim --all; reclaim said: %s", code, r.stdout)
			wantFree(t, port, srv.name+" after reclaim --all")
			wantEnded(t, membersOf(hs), srv.name+" after reclaim --all")
			wantNothingLeft(t, srv.name+" after reclaim --all")
		})
		t.Run(srv.name+"/stranded", func(t *testing.T) {
			dir := t.TempDir()
			port := freePort(t, "tcp")
			name := serverName(srv.name)
			tr := startTether(t, nil, append([]string{"run", "--name", name, "--signal", srv.ignored, "--"},
				detached(filepath.Join(dir, "server.log"), srv.args(t, dir, port))...)...)
			hs := waitServing(t, port, tr.cmd.Process.Pid, srv.name)
			wantRenamed(t, hs)
			for _, h := range hs {
				wantSupervisedByRecord(t, h.PID, name) // every holder in the record
			}
			strandRun(t, tr)
			wantAlive(t, membersOf(hs), srv.name+" after its watchdog and tether were killed (it ignores "+srv.ignored+")")
			for _, h := range hs {
				if rep, code := checkJSON(t, nil, itoa(h.PID)); code != 0 || rep.Verdict != probe.Stranded || rep.Name != name {
					t.Errorf("check %d after its tether was killed: exit %d, %+v; want 0, stranded, name %s", h.PID, code, rep, name)
				}
			}
			own := ownHolders(hs)
			listed := psJSON(t, "--name", name)
			for _, h := range own {
				rep, ok := listed[h.PID]
				if !ok || rep.Verdict != probe.Stranded || rep.Name != name {
					t.Errorf("ps --json --name %s: %d is %+v (listed %v); want it listed, stranded", name, h.PID, rep, ok)
				}
			}
			r := tether(t, nil, "reclaim", "--name", name, "--grace", "1s")
			if r.code != 0 {
				t.Errorf("reclaim --name %s: %+v; want exit 0", name, r)
			}
			t.Logf("reclaim --name of the stranded %s: %s", srv.name, r.stdout)
			wantFree(t, port, srv.name+" after reclaim")
			wantEnded(t, membersOf(hs), srv.name+" after reclaim")
			wantNothingLeft(t, srv.name+" after reclaim")
		})
	}
}

// wantSupervisedByRecord waits until check says pid is tethered (exit 0),
// supervised, of the run name, known by its run's record.
func wantSupervisedByRecord(t *testing.T, pid int, name string) {
	t.Helper()
	var rep checkReport
	var code int
	deadline := time.Now().Add(10 * time.Second)
	for {
		rep, code = checkJSON(t, nil, itoa(pid))
		if code == 0 && rep.Verdict == probe.Supervised && rep.Name == name && strings.HasPrefix(rep.Container, "record:") {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("check %d: exit %d, %+v; want 0, supervised, name %s, by its run's record (container record:RUNID) within 10s", pid, code, rep, name)
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// detached is args run with their standard output and error appended to
// path: a server left stranded must not hold the pipes of the tether the
// test reads (whose Wait would wait for them).
func detached(path string, args []string) []string {
	return append([]string{"/bin/sh", "-c", `exec "$@" >>"$0" 2>&1 </dev/null`, path}, args...)
}

// wantRenamed fails the test unless some holder's environment no longer
// reads as one (the server wrote its title over it): the case the run's
// record is for.
func wantRenamed(t *testing.T, hs []holder) {
	t.Helper()
	for _, h := range hs {
		env, err := proc.Host().Environ(h.PID)
		cmdline, _ := proc.Host().Cmdline(h.PID)
		if err == nil && proc.Overwritten(env, cmdline) {
			return
		}
	}
	t.Fatalf("no holder of %v has its environment overwritten; want a renamed server", membersOf(hs))
}

// ownHolders are the holders of the test's user now: ps and reclaim
// select those (nginx's workers are nobody's when the master is root's).
// Each one's uid is read again: a worker seen by tether wait a moment
// after its fork may still have been root's, before its setuid.
func ownHolders(hs []holder) []holder {
	var own []holder
	for _, h := range hs {
		uid := h.UID
		if st, err := proc.Host().Status(h.PID); err == nil {
			uid = st.UID
		}
		if uid == os.Getuid() {
			own = append(own, h)
		}
	}
	return own
}

// psJSON is tether ps --json with args, by PID.
func psJSON(t *testing.T, args ...string) map[int]checkReport {
	t.Helper()
	r := tether(t, nil, append([]string{"ps", "--json"}, args...)...)
	var reps []checkReport
	if err := json.Unmarshal([]byte(r.stdout), &reps); err != nil || r.code != 0 {
		t.Fatalf("ps --json %v: exit %d, %v: %q %q", args, r.code, err, r.stdout, r.stderr)
	}
	byPID := map[int]checkReport{}
	for _, rep := range reps {
		byPID[rep.PID] = rep
	}
	return byPID
}

// childrenNamed are the children of pid whose command name is comm.
func childrenNamed(pid int, comm string) []procid.ID {
	var ms []procid.ID
	for _, c := range ptree.Children(proc.Host(), pid) {
		if st, err := proc.Host().Stat(c); err == nil && st.Comm == comm {
			ms = append(ms, procid.ID{PID: c, StartTime: st.StartTime})
		}
	}
	return ms
}

// startNodeDevServer starts the node dev server under tether run (with
// extra run flags) and returns tether, the port, node and its sleep
// helper.
func startNodeDevServer(t *testing.T, extra ...string) (*running, string, []holder, []procid.ID) {
	t.Helper()
	dir := t.TempDir()
	port := freePort(t, "tcp")
	args := append(append([]string{"run", "--name", serverName("node")}, extra...), "--")
	tr := startTether(t, nil, append(args, detached(filepath.Join(dir, "server.log"), nodeArgs(t, dir, port, nodeDevServer))...)...)
	hs := waitServing(t, port, tr.cmd.Process.Pid, "node")
	var helper []procid.ID
	proctest.Eventually(t, "node's sleep helper started", func() bool {
		helper = childrenNamed(hs[0].PID, "sleep")
		return len(helper) == 1
	})
	t.Cleanup(func() { _ = kill.Signal(helper[0], syscall.SIGKILL) })
	return tr, port, hs, helper
}

// A stranded node dev server, reclaimed by its port, goes with its
// helper child, which does not hold the port: the run is ended whole.
func TestServerReclaimPortNodeHelper(t *testing.T) {
	t.Parallel() // its own ports and runs; it waits more than it works
	tr, port, hs, helper := startNodeDevServer(t)
	strandRun(t, tr)
	ms := append(membersOf(hs), helper...)
	wantAlive(t, ms, "node and its helper after the watchdog and tether were killed (node ignores TERM)")
	if rep, _ := checkJSON(t, nil, itoa(helper[0].PID)); rep.Verdict != probe.Stranded {
		t.Errorf("check of the helper %d: %+v; want it stranded", helper[0].PID, rep)
	}
	r := tether(t, nil, "reclaim", "--port", port, "--grace", "1s")
	if r.code != 0 || !strings.Contains(r.stdout, "port "+port+": free") {
		t.Errorf("reclaim --port %s: %+v; want exit 0 and the port free", port, r)
	}
	wantEnded(t, membersOf(hs), "node after reclaim --port")
	wantEnded(t, helper, "node's sleep helper after reclaim --port")
	wantNothingLeft(t, "after reclaim --port")
}

// A server that daemonizes, run with --forking: tether stays while the
// daemon serves, the daemon is supervised, and TERM to tether ends it.
// Without --forking, the run ends when the launcher exits 0, ending the
// daemon and saying that --forking would keep it.
func TestServerForking(t *testing.T) {
	// On the portable path there is no subreaper: a daemon that writes
	// its title over its environment before the first tick is out of
	// reach (docs/platforms.md, macOS, says so).
	needFull(t, "a daemon is kept below tether by the child subreaper")
	for _, tc := range []struct {
		name string
		args func(t *testing.T, dir, port string) []string
	}{
		{"redis", func(t *testing.T, dir, port string) []string { return redisArgs(t, dir, port, true) }},
		{"nginx", func(t *testing.T, dir, port string) []string { return nginxArgs(t, dir, port, false) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			port := freePort(t, "tcp")
			name := serverName(tc.name)
			tr := startTether(t, nil, append([]string{"run", "--forking", "--name", name, "--"}, tc.args(t, dir, port)...)...)
			hs := waitServing(t, port, tr.cmd.Process.Pid, tc.name+" under --forking")
			select {
			case <-tr.done:
				t.Fatalf("tether exited (%d) while the daemon serves; want it running", tr.code)
			default:
			}
			leader := false
			for _, h := range hs {
				if st, err := proc.Host().Stat(h.PID); err == nil && st.Session == h.PID {
					leader = true // the daemon, in a session of its own
				}
				// The daemon forked a moment ago: it is in the run's
				// record from tether's next tick on.
				wantSupervisedByRecord(t, h.PID, name)
			}
			if !leader {
				t.Errorf("no holder of %v leads a session: did %s daemonize?", membersOf(hs), tc.name)
			}
			if err := tr.cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			code := tr.wait(t)
			t.Logf("tether --forking exited %d after TERM", code)
			wantFree(t, port, tc.name+" after TERM to tether")
			wantEnded(t, membersOf(hs), tc.name+" daemon after TERM to tether")
			wantNothingLeft(t, tc.name+" after TERM to tether")
		})
	}
	t.Run("redis without --forking", func(t *testing.T) {
		dir := t.TempDir()
		port := freePort(t, "tcp")
		tr := startTether(t, nil, append([]string{"run", "--"}, redisArgs(t, dir, port, true)...)...)
		code := tr.wait(t)
		stderr := tr.errOut.String()
		if code != 0 || !strings.Contains(stderr, "--forking") {
			t.Errorf("run -- redis-server --daemonize yes: exit %d, stderr %q; want 0 and a line naming --forking", code, stderr)
		}
		t.Logf("run -- redis-server --daemonize yes: exit %d, stderr %q", code, stderr)
		wantFree(t, port, "redis daemon without --forking")
		if m := regexp.MustCompile(`left (\d+) `).FindStringSubmatch(stderr); m != nil {
			pid, _ := strconv.Atoi(m[1])
			proctest.Eventually(t, "the daemon "+m[1]+" named on stderr gone", func() bool { return deadOrZombie(pid) })
		}
		wantNothingLeft(t, "redis without --forking")
	})
}

// A stranded contained run, reclaimed by its port, leaves no cgroup.
func TestServerContainedReclaimPort(t *testing.T) {
	t.Parallel() // its own ports and runs; it waits more than it works
	needFull(t, "containment needs Linux's own path")
	if os.Geteuid() != 0 {
		t.Skip("needs root: --contain=cgroup makes the run's cgroup below root's")
	}
	if why := containUnavailable(t, escapeCase{mode: "cgroup"}); why != "" {
		t.Skip(why)
	}
	t.Run("redis", func(t *testing.T) {
		dir := t.TempDir()
		port := freePort(t, "tcp")
		name := serverName("redis")
		tr := startTether(t, nil, append([]string{"run", "--contain=cgroup", "--name", name, "--signal", "HUP", "--"},
			detached(filepath.Join(dir, "server.log"), redisArgs(t, dir, port, false))...)...)
		hs := waitServing(t, port, tr.cmd.Process.Pid, "contained redis")
		containedReclaim(t, tr, port, hs, membersOf(hs), true)
	})
	t.Run("node", func(t *testing.T) {
		tr, port, hs, helper := startNodeDevServer(t, "--contain=cgroup")
		containedReclaim(t, tr, port, hs, append(membersOf(hs), helper...), false)
	})
}

// containedReclaim strands the contained run tr, whose server holds port
// and whose members are ms, reclaims the port, and wants the run's
// members and cgroup gone.
func containedReclaim(t *testing.T, tr *running, port string, hs []holder, ms []procid.ID, renamed bool) {
	t.Helper()
	group := groupOf(t, escapeCase{mode: "cgroup"}, hs[0].PID)
	rep, code := checkJSON(t, nil, itoa(hs[0].PID))
	// A renamed server is known by its cgroup ("container"); one that
	// kept its environment by its own markers, and check names no
	// container then.
	byGroup := strings.HasPrefix(rep.Container, "cgroup:") && strings.HasSuffix(rep.Container, "/"+filepath.Base(group))
	if code != 0 || rep.Verdict != probe.Supervised || renamed && !byGroup {
		t.Errorf("check %d: exit %d, %+v; want supervised (renamed %v: by its cgroup %s)", hs[0].PID, code, rep, renamed, group)
	}
	strandRun(t, tr)
	wantAlive(t, ms, "the contained server after its watchdog and tether were killed")
	if _, err := os.Stat(group); err != nil {
		t.Fatalf("the run's cgroup %s: %v; want it there while the stranded server runs", group, err)
	}
	r := tether(t, nil, "reclaim", "--port", port, "--grace", "1s")
	if r.code != 0 || !strings.Contains(r.stdout, "port "+port+": free") {
		t.Errorf("reclaim --port %s: %+v; want exit 0 and the port free", port, r)
	}
	wantEnded(t, ms, "the contained run after reclaim --port")
	// reclaim removes the cgroup it emptied before it exits.
	if _, err := os.Stat(group); !os.IsNotExist(err) {
		populated, _ := os.ReadFile(filepath.Join(group, "cgroup.events"))
		t.Errorf("the run's cgroup %s is still there after reclaim --port ended its members (%v; cgroup.events %q): want it removed", group, err, populated)
	}
	wantNothingLeft(t, "after reclaim --port")
}
