package e2e

import (
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tetherproc/tether/internal/proctest"
)

// freePort finds a port nothing listens on now, for network (tcp or udp).
func freePort(t *testing.T, network string) string {
	t.Helper()
	var addr net.Addr
	if network == "udp" {
		c, err := net.ListenPacket("udp4", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr = c.LocalAddr()
		c.Close()
	} else {
		l, err := net.Listen("tcp4", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr = l.Addr()
		l.Close()
	}
	_, port, _ := net.SplitHostPort(addr.String())
	return port
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

// With --owned, a program already on the port is not the server being
// waited for.
func TestWaitOwnedIgnoresForeignListener(t *testing.T) {
	port := freePort(t, "tcp")
	foreign := serve(t, "PROCTEST_LISTEN=tcp4:127.0.0.1:"+port)
	if line := foreign.line(t); line != "listening" {
		t.Fatalf("foreign listener printed %q", line)
	}
	other := serve(t, "PROCTEST_DELAY=30s")
	if r, _ := timedWait(t, "--port", port, "--pid", strconv.Itoa(other.cmd.Process.Pid), "--owned", "--timeout", "1s"); r.code != 1 {
		t.Errorf("--owned with another program on the port: %+v; want it to keep waiting, exit 1 at the timeout", r)
	}
	if r, _ := timedWait(t, "--port", port, "--pid", strconv.Itoa(other.cmd.Process.Pid), "--timeout", "1s"); r.code != 0 {
		t.Errorf("without --owned: %+v; want exit 0, the port has a listener", r)
	}
	if r, _ := timedWait(t, "--port", port, "--pid", strconv.Itoa(foreign.cmd.Process.Pid), "--owned", "--timeout", "5s"); r.code != 0 {
		t.Errorf("--owned by the listener's own tether: %+v; want exit 0", r)
	}
}

// IPv6-only and UDP listeners, and several ports at once, one of them
// late.
func TestWaitIPv6UDPAndSeveralPorts(t *testing.T) {
	v6, udp, late := freePort(t, "tcp"), freePort(t, "udp"), freePort(t, "tcp")
	if l, err := net.Listen("tcp6", "[::1]:0"); err != nil {
		t.Skipf("no IPv6 loopback here: %v", err)
	} else {
		l.Close()
	}
	serve(t, "PROCTEST_LISTEN=tcp6:[::1]:"+v6+" udp4:127.0.0.1:"+udp)
	serve(t, "PROCTEST_DELAY=500ms", "PROCTEST_LISTEN=tcp4:127.0.0.1:"+late)
	r, _ := timedWait(t, "--port", v6, "--port", udp, "--port", late, "--timeout", "20s")
	if r.code != 0 {
		t.Fatalf("wait for three ports: %+v; want exit 0", r)
	}
	for _, want := range []string{"tcp [::1]:" + v6, "udp 127.0.0.1:" + udp, "tcp 127.0.0.1:" + late} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout %q; want %q", r.stdout, want)
		}
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
}
