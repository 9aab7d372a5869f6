package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/proctest"
)

// freePort finds a port nothing listens on now, for network (tcp or
// udp), handed out once: e2e's ports are taken from 20000 to 31999.
func freePort(t *testing.T, network string) string {
	t.Helper()
	return strconv.Itoa(proctest.FreePort(t, network, 20000, 31999))
}

// served keeps the serve helper's sockets open.
var served []io.Closer

// modeServe waits PROCTEST_DELAY, then exits 1 if PROCTEST_CRASH is set,
// or else listens on each of PROCTEST_LISTEN ("tcp4:127.0.0.1:PORT",
// "tcp6:[::1]:PORT", "udp4:127.0.0.1:PORT", space-separated), prints
// "listening" and stays.
var modeServe = proctest.Register("serve", func() {
	delay, _ := time.ParseDuration(os.Getenv("PROCTEST_DELAY"))
	time.Sleep(delay)
	if os.Getenv("PROCTEST_CRASH") != "" {
		os.Exit(1)
	}
	for _, spec := range strings.Fields(os.Getenv("PROCTEST_LISTEN")) {
		network, addr, _ := strings.Cut(spec, ":")
		var c io.Closer
		var err error
		if strings.HasPrefix(network, "udp") {
			c, err = net.ListenPacket(network, addr)
		} else {
			c, err = net.Listen(network, addr)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		// Held, so that no finalizer closes it.
		served = append(served, c)
	}
	fmt.Println("listening")
	forever()
})

// modeHTTPServe is proctest's HTTP server, which reclaim's tests use too.
const modeHTTPServe = proctest.HTTP

// modeSharedListen is proctest's server whose workers share its socket.
const modeSharedListen = proctest.SharedListen

// httpServe starts the HTTP helper with env and returns it, its port,
// and its output after the port (where "200" is printed).
func httpServe(t *testing.T, env ...string) (*proctest.Proc, string, *os.File) {
	t.Helper()
	pr, pw := pipe(t)
	p := proctest.Start(t, modeHTTPServe, proctest.Spec{Env: env, Stdout: pw})
	pw.Close()
	return p, proctest.ReadLine(t, pr), pr
}

// waitJSON is the part of tether wait --json these tests read.
type waitJSON struct {
	Ready   bool `json:"ready"`
	PIDGone bool `json:"pid_gone"`
	Ports   []struct {
		Port      int  `json:"port"`
		Ready     bool `json:"ready"`
		Free      bool `json:"free"`
		Listeners []struct {
			Proto string `json:"proto"`
			Addr  string `json:"addr"`
		} `json:"listeners"`
		Holders []struct {
			PID int `json:"pid"`
		} `json:"holders"`
		URL        string `json:"url"`
		HTTPStatus int    `json:"http_status"`
	} `json:"ports"`
}

func decodeWait(t *testing.T, r result) waitJSON {
	t.Helper()
	var w waitJSON
	if err := json.Unmarshal([]byte(r.stdout), &w); err != nil {
		t.Fatalf("wait --json: %v: %q (stderr %q)", err, r.stdout, r.stderr)
	}
	return w
}

// serve starts the serve helper under tether run and returns tether.
func serve(t *testing.T, env ...string) *running {
	t.Helper()
	return startTether(t, helperEnv(modeServe, env...), "run", "--name", "served", "--", os.Args[0])
}

// timedWait runs tether wait with args and returns its result and how
// long it took.
func timedWait(t *testing.T, args ...string) (result, time.Duration) {
	t.Helper()
	start := time.Now()
	r := tether(t, nil, append([]string{"wait"}, args...)...)
	return r, time.Since(start)
}

func TestWaitServerListensLater(t *testing.T) {
	t.Parallel() // its own ports and runs; it waits more than it works
	port := freePort(t, "tcp")
	srv := serve(t, "PROCTEST_DELAY=1s", "PROCTEST_LISTEN=tcp4:127.0.0.1:"+port)
	r, took := timedWait(t, "--port", port, "--pid", strconv.Itoa(srv.cmd.Process.Pid))
	if r.code != 0 || !strings.Contains(r.stdout, "port "+port+": tcp 127.0.0.1:"+port) || !strings.Contains(r.stdout, "served") {
		t.Errorf("wait for a server that listens after 1s: %+v; want exit 0 and the port's holder, the run named served", r)
	}
	if took < 900*time.Millisecond || took > 10*time.Second {
		t.Errorf("wait took %v; want about the server's 1s", took)
	}
	t.Logf("ready after %v", took)
}

func TestWaitTimesOut(t *testing.T) {
	t.Parallel() // its own ports and runs; it waits more than it works
	port := freePort(t, "tcp")
	r, took := timedWait(t, "--port", port, "--timeout", "1s")
	if r.code != 1 || !strings.Contains(r.stderr, "no listener on port "+port) {
		t.Errorf("wait for a port nobody listens on: %+v; want exit 1 naming the port", r)
	}
	if took < time.Second {
		t.Errorf("gave up after %v; want the whole timeout, 1s", took)
	}
	if r, _ := timedWait(t, "--port", port, "--timeout", "0"); r.code != 1 {
		t.Errorf("--timeout 0 on a free port: %+v; want one check, exit 1", r)
	}
}

// A server that crashes before it listens ends the wait at once (3),
// not at the timeout.
func TestWaitServerCrashed(t *testing.T) {
	t.Parallel() // its own ports and runs; it waits more than it works
	port := freePort(t, "tcp")
	srv := serve(t, "PROCTEST_DELAY=200ms", "PROCTEST_CRASH=1")
	r, took := timedWait(t, "--port", port, "--pid", strconv.Itoa(srv.cmd.Process.Pid), "--timeout", "60s")
	if r.code != 3 || !strings.Contains(r.stderr, "PID "+strconv.Itoa(srv.cmd.Process.Pid)+" is gone") {
		t.Errorf("wait for a server that crashed: %+v; want exit 3 naming the PID", r)
	}
	if took > 20*time.Second {
		t.Errorf("took %v; want the crash noticed long before the 60s timeout", took)
	}
}

// IPv6-only and UDP listeners, and several ports at once, one of them
// late.
func TestWaitIPv6UDPAndSeveralPorts(t *testing.T) {
	t.Parallel() // its own ports and runs; it waits more than it works
	v6, udp, late := freePort(t, "tcp"), freePort(t, "udp"), freePort(t, "tcp")
	if l, err := net.Listen("tcp6", "[::1]:0"); err != nil {
		t.Skipf("no IPv6 loopback here: %v", err)
	} else {
		l.Close()
	}
	serve(t, "PROCTEST_LISTEN=tcp6:[::1]:"+v6+" udp4:127.0.0.1:"+udp)
	serve(t, "PROCTEST_DELAY=500ms", "PROCTEST_LISTEN=tcp4:127.0.0.1:"+late)
	r, _ := timedWait(t, "--port", v6, "--port", late, "--timeout", "20s")
	if r.code != 0 {
		t.Fatalf("wait for two ports: %+v; want exit 0", r)
	}
	for _, want := range []string{"tcp [::1]:" + v6, "tcp 127.0.0.1:" + late} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout %q; want %q", r.stdout, want)
		}
	}
	// A UDP socket bound is not a server that accepts: TCP is the
	// default; --udp waits for it.
	if r, _ := timedWait(t, "--port", udp, "--timeout", "300ms"); r.code != 1 || !strings.Contains(r.stderr, "no listener on port "+udp) {
		t.Errorf("wait for a port with only a UDP socket: %+v; want exit 1, no listener", r)
	}
	if r, _ := timedWait(t, "--port", udp, "--udp", "--timeout", "20s"); r.code != 0 || !strings.Contains(r.stdout, "udp 127.0.0.1:"+udp) {
		t.Errorf("wait --udp: %+v; want exit 0 and the UDP socket", r)
	}
}

// wait --free returns once the holder has exited: at the next check
// without --pid, at the exit with it. The latency is logged, not
// asserted: these machines are shared.
func TestWaitFreeAfterHolderExits(t *testing.T) {
	t.Parallel() // its own ports and runs; it waits more than it works
	for _, withPID := range []bool{false, true} {
		holder, port, _ := httpServe(t)
		args := []string{"wait", "--free", "-p", port, "--timeout", "60s"}
		if withPID {
			args = append(args, "--pid", strconv.Itoa(holder.PID()))
		}
		w := startTether(t, nil, args...)
		time.Sleep(500 * time.Millisecond)
		select {
		case <-w.done:
			t.Fatalf("wait --free returned while the port was held: exit %d, %q", w.code, w.errOut.String())
		default:
		}
		told := time.Now()
		if err := holder.Stop(); err != nil {
			t.Logf("holder: %v", err)
		}
		reaped := time.Now()
		code := w.wait(t)
		returned := time.Now()
		if code != 0 {
			t.Errorf("wait --free (--pid %v) once the holder exited: exit %d, stderr %q; want 0", withPID, code, w.errOut.String())
		}
		if line := w.line(t); line != "port "+port+": free" {
			t.Errorf("wait --free printed %q; want \"port %s: free\"", line, port)
		}
		t.Logf("wait --free (--pid %v) returned %v after the holder was told to exit, %v after it was reaped",
			withPID, returned.Sub(told).Round(time.Millisecond), returned.Sub(reaped).Round(time.Millisecond))
	}
}

// A port still held at the timeout: exit 1, naming who holds it.
func TestWaitFreeTimesOutNamingHolder(t *testing.T) {
	t.Parallel() // its own ports and runs; it waits more than it works
	holder, port, _ := httpServe(t)
	r, _ := timedWait(t, "--free", "--port", port, "--timeout", "1s")
	if want := fmt.Sprintf("port %s still held by PID %d (", port, holder.PID()); r.code != 1 || !strings.Contains(r.stderr, want) {
		t.Errorf("wait --free on a held port: %+v; want exit 1 and %q", r, want)
	}
	w := decodeWait(t, tether(t, nil, "wait", "--free", "--json", "-p", port, "--timeout", "0"))
	if w.Ready || len(w.Ports) != 1 || w.Ports[0].Free || w.Ports[0].Ready || len(w.Ports[0].Holders) != 1 {
		t.Errorf("wait --free --json on a held port: %+v; want not ready, not free, the holder", w)
	}
}

// A server that listens at once and answers 503 for a second is ready
// with its first 200, and not before it: the 200 had been sent when wait
// returned. The request goes to the listener itself whatever proxy the
// environment names.
func TestWaitHTTPReadyAfter200(t *testing.T) {
	t.Parallel() // its own ports and runs; it waits more than it works
	_, port, out := httpServe(t, "PROCTEST_DELAY=1s")
	proxy := []string{"HTTP_PROXY=http://127.0.0.1:1", "http_proxy=http://127.0.0.1:1", "NO_PROXY=", "no_proxy="}
	start := time.Now()
	r := tether(t, proxy, "wait", "-p", port, "--http", "/health", "--timeout", "30s")
	took := time.Since(start)
	want := fmt.Sprintf("; GET http://127.0.0.1:%s/health answered 200", port)
	if r.code != 0 || !strings.Contains(r.stdout, "port "+port+": tcp 127.0.0.1:"+port) || !strings.Contains(r.stdout, want) {
		t.Errorf("wait --http on a server that answers 200 after 1s: %+v; want exit 0 and %q", r, want)
	}
	if line := proctest.ReadLine(t, out); line != "200" {
		t.Errorf("server printed %q; want the 200 it sent before wait returned", line)
	}
	t.Logf("ready after %v", took)
	w := decodeWait(t, tether(t, nil, "wait", "--json", "-p", port, "--http", "/health", "--timeout", "0"))
	if p := w.Ports; !w.Ready || len(p) != 1 || p[0].HTTPStatus != 200 || p[0].URL != "http://127.0.0.1:"+port+"/health" {
		t.Errorf("wait --http --json: %+v; want ready, status 200, the URL asked", w)
	}
}

// A server that answers 500 until the timeout: exit 1, naming the answer.
func TestWaitHTTP500UntilTimeout(t *testing.T) {
	t.Parallel() // its own ports and runs; it waits more than it works
	_, port, _ := httpServe(t, "PROCTEST_DELAY=1h", "PROCTEST_EARLY=500")
	r, _ := timedWait(t, "-p", port, "--http", "/", "--timeout", "2s")
	want := fmt.Sprintf("port %s: GET http://127.0.0.1:%s/ answered 500", port, port)
	if r.code != 1 || !strings.Contains(r.stderr, want) || r.stdout != "" {
		t.Errorf("wait --http on a server that answers 500: %+v; want exit 1 and %q", r, want)
	}
	if r, _ := timedWait(t, "-p", port, "--http", "/", "--status", "200-299,500", "--timeout", "10s"); r.code != 0 {
		t.Errorf("wait --http --status 200-299,500 on a server that answers 500: %+v; want exit 0", r)
	}
}

// --pid ends an HTTP wait at once when the server dies.
func TestWaitHTTPServerDies(t *testing.T) {
	t.Parallel() // its own ports and runs; it waits more than it works
	srv, port, _ := httpServe(t, "PROCTEST_DELAY=1h", "PROCTEST_EARLY=500", "PROCTEST_DIE=500ms")
	r, took := timedWait(t, "-p", port, "--http", "/", "--pid", strconv.Itoa(srv.PID()), "--timeout", "60s")
	if r.code != 3 || !strings.Contains(r.stderr, fmt.Sprintf("PID %d is gone", srv.PID())) {
		t.Errorf("wait --http --pid on a server that died: %+v; want exit 3 naming the PID", r)
	}
	if took > 20*time.Second {
		t.Errorf("took %v; want the death noticed long before the 60s timeout", took)
	}
}

// Workers that share their master's socket (nginx): the socket is
// listed once, each holder once, in text and in JSON.
func TestWaitSharedSocketListedOnce(t *testing.T) {
	pr, pw := pipe(t)
	master := proctest.Start(t, modeSharedListen, proctest.Spec{Stdout: pw})
	pw.Close()
	fields := strings.Fields(proctest.ReadLine(t, pr))
	if len(fields) != 3 {
		t.Fatalf("shared-listen printed %q; want the port and two PIDs", fields)
	}
	port := fields[0]
	pids := append([]string{strconv.Itoa(master.PID())}, fields[1:]...)
	r := tether(t, nil, "wait", "-p", port, "--timeout", "10s")
	if r.code != 0 || strings.Count(r.stdout, "tcp 127.0.0.1:"+port) != 1 {
		t.Errorf("wait on a socket three processes share: %+v; want exit 0 and the socket once", r)
	}
	for _, pid := range pids {
		if n := strings.Count(r.stdout, "PID "+pid+" "); n != 1 {
			t.Errorf("holder %s named %d times in %q; want once", pid, n, r.stdout)
		}
	}
	w := decodeWait(t, tether(t, nil, "wait", "--json", "-p", port, "--timeout", "10s"))
	var got []string
	for _, h := range w.Ports[0].Holders {
		got = append(got, strconv.Itoa(h.PID))
	}
	slices.Sort(got)
	slices.Sort(pids)
	if len(w.Ports) != 1 || len(w.Ports[0].Listeners) != 1 || !slices.Equal(got, pids) {
		t.Errorf("wait --json on a shared socket: %+v; want one listener, the holders %v each once", w, pids)
	}
}

func TestWaitUsage(t *testing.T) {
	wantUsage(t, tether(t, nil, "wait"), "--port")
	wantUsage(t, tether(t, nil, "wait", "--port", "0"), `"0"`)
	wantUsage(t, tether(t, nil, "wait", "--port", "80", "--owned"), "--pid")
	wantUsage(t, tether(t, nil, "wait", "--port", "80", "--timeout", "-1s"), "-1s")
	wantUsage(t, tether(t, nil, "wait", "--port", "80", "--interval", "0s"), "--interval")
	wantUsage(t, tether(t, nil, "wait", "--port", "80", "--pid", "x"), `"x"`)
	wantUsage(t, tether(t, nil, "wait", "--port", "80", "8080"), `"8080"`)
	wantUsage(t, tether(t, nil, "wait", "--port", "80", "--free", "--http", "/"), "--http")
	wantUsage(t, tether(t, nil, "wait", "--port", "80", "--free", "--owned", "--pid", "1"), "--owned")
	wantUsage(t, tether(t, nil, "wait", "--port", "80", "--status", "404"), "404")
	wantUsage(t, tether(t, nil, "wait", "--port", "80", "--http", "/", "--status", "99"), "99")
	wantUsage(t, tether(t, nil, "wait", "--port", "80", "--http", "/", "--status", "1000"), "1000")
	wantUsage(t, tether(t, nil, "wait", "--port", "80", "--http", "/", "--status", "abc"), `"abc"`)
	wantUsage(t, tether(t, nil, "wait", "--port", "80", "--http", "health"), `"health"`)
	wantUsage(t, tether(t, nil, "wait", "--port", "80", "--http", ""), `""`)
	wantUsage(t, tether(t, nil, "wait", "--port", "80", "--http", "/a b"), `"/a b"`)
}

// The shell recipe's trap: a stale server holds the port while the new
// one starts (and, here, fails on EADDRINUSE). With --pid, the stale
// server is not the one waited for: the wait ends when the new one is
// gone (3), naming what holds the port, and the tests never run against
// the stale server. --any-holder counts it.
func TestWaitPIDIgnoresStaleServer(t *testing.T) {
	t.Parallel() // its own ports and runs; it waits more than it works
	port := freePort(t, "tcp")
	stale := serve(t, "PROCTEST_LISTEN=tcp4:127.0.0.1:"+port)
	if line := stale.line(t); line != "listening" {
		t.Fatalf("the stale server said %q, want listening", line)
	}
	fresh := serve(t, "PROCTEST_DELAY=300ms", "PROCTEST_LISTEN=tcp4:127.0.0.1:"+port)
	r, _ := timedWait(t, "--port", port, "--pid", strconv.Itoa(fresh.cmd.Process.Pid), "--timeout", "60s")
	// The holder is the stale tether's command, its child.
	want := fmt.Sprintf("port %s: held by PID %d (served, supervised)", port, childOf(t, stale.cmd.Process.Pid))
	if r.code != 3 || !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, "not by --pid's tree") {
		t.Errorf("wait --pid with a stale server on the port: %+v; want exit 3 and %q, not by --pid's tree", r, want)
	}
	if r, _ := timedWait(t, "--port", port, "--pid", strconv.Itoa(stale.cmd.Process.Pid), "--timeout", "10s"); r.code != 0 {
		t.Errorf("wait --pid of the server that holds the port: %+v; want ready", r)
	}
	self := strconv.Itoa(os.Getpid())
	if r, _ := timedWait(t, "--port", port, "--pid", self, "--any-holder", "--timeout", "10s"); r.code != 0 {
		t.Errorf("wait --pid --any-holder: %+v; want ready, whoever holds it", r)
	}
}

// childOf is pid's one child.
func childOf(t *testing.T, pid int) int {
	t.Helper()
	kids := childrenOf(pid)
	for _, k := range kids {
		if p, err := proc.Host().Process(k); err == nil && !strings.Contains(p.Comm, "tether") {
			return k
		}
	}
	t.Fatalf("process %d has no child but its watchdog: %v", pid, kids)
	return 0
}
