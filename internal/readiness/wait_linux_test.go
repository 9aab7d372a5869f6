package readiness_test

import (
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/proctest"
	"github.com/tetherproc/tether/internal/readiness"
	"github.com/tetherproc/tether/probe"
)

// modeListenLater waits PROCTEST_DELAY, then serves PROCTEST_AT
// ("tcp4:127.0.0.1:PORT", "udp6:[::1]:PORT"), prints "listening", and
// waits for stdin to close: a server that takes its time to start.
var modeListenLater = proctest.Register("listen-later", func() {
	if d, err := time.ParseDuration(os.Getenv("PROCTEST_DELAY")); err == nil {
		time.Sleep(d)
	}
	network, addr, _ := strings.Cut(os.Getenv("PROCTEST_AT"), ":")
	var err error
	if strings.HasPrefix(network, "udp") {
		_, err = net.ListenPacket(network, addr)
	} else {
		_, err = net.Listen(network, addr)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "listen-later:", err)
		os.Exit(2)
	}
	fmt.Println("listening")
	_, _ = io.Copy(io.Discard, os.Stdin)
})

// modeListenBelow starts a listen-later child that shares its stdin and
// stdout, and waits for stdin to close and for the child: a launcher
// whose child, not itself, holds the port.
var modeListenBelow = proctest.Starts(proctest.Register("listen-below", func() {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), proctest.Mode(modeListenLater))
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "listen-below:", err)
		os.Exit(2)
	}
	_, _ = io.Copy(io.Discard, os.Stdin)
	_ = cmd.Wait()
}), modeListenLater)

// freePort is a port of network (tcp4 or udp4) that nothing serves
// now: readiness's ports are taken from 14000 to 19999, apart from
// e2e's, whose tests run beside these.
func freePort(t *testing.T, network string) uint16 {
	t.Helper()
	return uint16(proctest.FreePort(t, network, 14000, 19999))
}

// listener starts the listen helper on a loopback port of kind (tcp4,
// tcp6, udp4, udp6) and returns it and its port.
func listener(t *testing.T, kind string) (*proctest.Proc, uint16) {
	t.Helper()
	p, line := proctest.StartLine(t, proctest.Listen, proctest.Spec{Env: []string{"PROCTEST_LISTEN=" + kind}})
	port, err := strconv.Atoi(line)
	if err != nil {
		t.Fatalf("listen helper %s printed no port: %v", kind, err)
	}
	return p, uint16(port)
}

// modeHTTP is proctest's HTTP server, which the binary's tests use too.
const modeHTTP = proctest.HTTP

// modeSharedListen is proctest's server whose workers share its socket.
const modeSharedListen = proctest.SharedListen

// httpServer starts the HTTP helper with env and returns it, its port,
// and its output after the port (where "200" is printed).
func httpServer(t *testing.T, env ...string) (*proctest.Proc, uint16, *os.File) {
	t.Helper()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pr.Close() })
	p := proctest.Start(t, modeHTTP, proctest.Spec{Env: env, Stdout: pw})
	pw.Close()
	port, err := strconv.Atoi(proctest.ReadLine(t, pr))
	if err != nil {
		t.Fatalf("HTTP helper printed no port: %v", err)
	}
	return p, uint16(port), pr
}

func wait(t *testing.T, s readiness.Spec) (ports []readiness.Port, ready, gone bool) {
	t.Helper()
	r, err := s.Wait()
	if err != nil {
		t.Fatalf("%+v.Wait(): %v", s, err)
	}
	if len(r.Ports) == 0 {
		t.Fatalf("%+v.Wait() described no port", s)
	}
	return r.Ports, r.Ready, r.PIDGone
}

// A port already served is ready at the first check, and its listener
// and holder are named; a port asked for twice is waited for once.
func TestWaitReadyNamesHolder(t *testing.T) {
	p, port := listener(t, "tcp4")
	ports, ready, gone := wait(t, readiness.Spec{Ports: []uint16{port, port}, PID: p.PID(), Timeout: 20 * time.Second})
	if !ready || gone || len(ports) != 1 {
		t.Fatalf("ready %v, pid gone %v, ports %+v; want ready, the one port", ready, gone, ports)
	}
	r := ports[0]
	if !r.Ready || len(r.Listeners) != 1 || r.Listeners[0].String() != fmt.Sprintf("tcp 127.0.0.1:%d", port) {
		t.Errorf("port %d: %+v; want ready with the listener tcp 127.0.0.1:%d", port, r, port)
	}
	if len(r.Holders) != 1 || r.Holders[0].PID != p.PID() || r.Holders[0].Verdict != probe.Foreign {
		t.Errorf("holders %+v; want the helper %d, foreign", r.Holders, p.PID())
	}
}

// A server that listens a while after it started is waited for, and
// with Owned a listener its child holds counts: the owners are read
// again at each check.
func TestWaitListenerOfChildLater(t *testing.T) {
	port := freePort(t, "tcp4")
	out, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	defer w.Close()
	p := proctest.Start(t, modeListenBelow, proctest.Spec{
		Env:    []string{"PROCTEST_DELAY=300ms", fmt.Sprintf("PROCTEST_AT=tcp4:127.0.0.1:%d", port)},
		Stdout: w,
	})
	ports, ready, gone := wait(t, readiness.Spec{Ports: []uint16{port}, PID: p.PID(), Owned: true, Timeout: 30 * time.Second})
	if !ready || gone {
		t.Fatalf("ready %v, pid gone %v, ports %+v; want ready once the child listens", ready, gone, ports)
	}
	if line := proctest.ReadLine(t, out); line != "listening" {
		t.Fatalf("listen-later child printed %q", line)
	}
	hs := ports[0].Holders
	if len(hs) != 1 || hs[0].PID == p.PID() {
		t.Fatalf("holders %+v; want the one child of %d", hs, p.PID())
	}
	if st, err := proc.Host().Stat(hs[0].PID); err != nil || st.PPID != p.PID() {
		t.Errorf("holder %d: stat %+v, %v; want a child of %d", hs[0].PID, st, err, p.PID())
	}
}

// With Owned, a program already on the port is not the server waited
// for; without it, any listener will do.
func TestWaitOwnedIgnoresOtherListener(t *testing.T) {
	other, port := listener(t, "tcp4")
	srv := proctest.Start(t, proctest.Wait, proctest.Spec{})
	ports, ready, gone := wait(t, readiness.Spec{Ports: []uint16{port}, PID: srv.PID(), Owned: true, Timeout: 500 * time.Millisecond})
	if ready || gone || ports[0].Ready || len(ports[0].Holders) != 0 {
		t.Errorf("owned by %d, another program on the port: ready %v, pid gone %v, %+v; want the timeout, no holder of its own", srv.PID(), ready, gone, ports[0])
	}
	ports, ready, _ = wait(t, readiness.Spec{Ports: []uint16{port}, PID: srv.PID(), Timeout: 10 * time.Second})
	if !ready || len(ports[0].Holders) != 1 || ports[0].Holders[0].PID != other.PID() {
		t.Errorf("not owned: ready %v, %+v; want ready, held by %d", ready, ports[0], other.PID())
	}
	if _, ready, _ = wait(t, readiness.Spec{Ports: []uint16{port}, PID: other.PID(), Owned: true, Timeout: 10 * time.Second}); !ready {
		t.Errorf("owned by the listener %d itself: not ready", other.PID())
	}
}

// A zombie has exited: a wait on it ends at once, not at the timeout.
func TestWaitZombieIsGone(t *testing.T) {
	port := freePort(t, "tcp4")
	z := proctest.StartUnreaped(t, proctest.Exit, proctest.Spec{})
	proctest.Eventually(t, "the helper a zombie", func() bool {
		p, err := proc.Host().Process(z.PID())
		return err == nil && p.Zombie
	})
	start := time.Now()
	ports, ready, gone := wait(t, readiness.Spec{Ports: []uint16{port}, PID: z.PID(), Timeout: time.Minute})
	if ready || !gone || ports[0].Ready {
		t.Errorf("wait on zombie %d: ready %v, pid gone %v, %+v; want pid gone", z.PID(), ready, gone, ports[0])
	}
	if took := time.Since(start); took > 30*time.Second {
		t.Errorf("took %v; want the exit seen long before the 1m timeout", took)
	}
}

// A server that dies while it is waited for ends the wait at once.
func TestWaitServerDiesDuringWait(t *testing.T) {
	port := freePort(t, "tcp4")
	srv := proctest.Start(t, proctest.Wait, proctest.Spec{})
	stopped := stopLater(srv)
	start := time.Now()
	_, ready, gone := wait(t, readiness.Spec{Ports: []uint16{port}, PID: srv.PID(), Timeout: time.Minute})
	stopped()
	if ready || !gone {
		t.Errorf("wait on %d, which exited: ready %v, pid gone %v; want pid gone", srv.PID(), ready, gone)
	}
	if took := time.Since(start); took > 30*time.Second {
		t.Errorf("took %v; want the exit seen long before the 1m timeout", took)
	}
}

// Nobody on the port: the whole timeout is waited, and then the port is
// named as missing; a timeout of 0 checks once.
func TestWaitTimesOut(t *testing.T) {
	port := freePort(t, "tcp4")
	start := time.Now()
	ports, ready, gone := wait(t, readiness.Spec{Ports: []uint16{port}, Timeout: 500 * time.Millisecond, Interval: 10 * time.Millisecond})
	if took := time.Since(start); took < 500*time.Millisecond {
		t.Errorf("gave up after %v; want the whole timeout", took)
	}
	if ready || gone || len(ports) != 1 || ports[0].Port != port || ports[0].Ready || ports[0].Listeners != nil {
		t.Errorf("ready %v, pid gone %v, %+v; want the timeout, port %d not ready", ready, gone, ports, port)
	}
	if _, ready, gone := wait(t, readiness.Spec{Ports: []uint16{port}}); ready || gone {
		t.Errorf("zero timeout: ready %v, pid gone %v; want one check, not ready", ready, gone)
	}
}

// IPv6-only and UDP listeners count, several ports at once, one late.
func TestWaitIPv6UDPAndLatePort(t *testing.T) {
	if l, err := net.Listen("tcp6", "[::1]:0"); err != nil {
		t.Skipf("no IPv6 loopback here: %v", err)
	} else {
		l.Close()
	}
	_, v6 := listener(t, "tcp6")
	_, udp := listener(t, "udp6")
	late := freePort(t, "udp4")
	proctest.Start(t, modeListenLater, proctest.Spec{Env: []string{"PROCTEST_DELAY=300ms", fmt.Sprintf("PROCTEST_AT=udp4:127.0.0.1:%d", late)}})
	ports, ready, _ := wait(t, readiness.Spec{Ports: []uint16{v6, udp, late}, Timeout: 30 * time.Second})
	if !ready {
		t.Fatalf("not ready: %+v", ports)
	}
	for i, want := range []string{fmt.Sprintf("tcp [::1]:%d", v6), fmt.Sprintf("udp [::1]:%d", udp), fmt.Sprintf("udp 127.0.0.1:%d", late)} {
		if r := ports[i]; !r.Ready || len(r.Listeners) != 1 || r.Listeners[0].String() != want {
			t.Errorf("port %d: %+v; want ready, the listener %s", r.Port, r, want)
		}
	}
}

// A port stays held while its holder lives, and the holder is named; it
// is free once the holder has exited, seen without --pid at the next
// check, and with PID at its exit.
func TestWaitFree(t *testing.T) {
	p, port := listener(t, "tcp4")
	ports, ready, gone := wait(t, readiness.Spec{Ports: []uint16{port}, Free: true, Timeout: 300 * time.Millisecond})
	if ready || gone || ports[0].Ready || ports[0].Free || len(ports[0].Holders) != 1 || ports[0].Holders[0].PID != p.PID() {
		t.Fatalf("free wait on a held port: ready %v, pid gone %v, %+v; want the timeout, held by %d", ready, gone, ports[0], p.PID())
	}
	for _, withPID := range []bool{false, true} {
		p, port := listener(t, "tcp4")
		spec := readiness.Spec{Ports: []uint16{port}, Free: true, Timeout: time.Minute}
		if withPID {
			spec.PID = p.PID()
		}
		stopped := stopLater(p)
		start := time.Now()
		ports, ready, gone := wait(t, spec)
		stopped()
		took := time.Since(start)
		if !ready || gone || !ports[0].Ready || !ports[0].Free || len(ports[0].Holders) != 0 || len(ports[0].Listeners) != 0 {
			t.Errorf("free wait, PID given %v: ready %v, pid gone %v, %+v; want ready, the port free", withPID, ready, gone, ports[0])
		}
		if took > 30*time.Second {
			t.Errorf("free wait, PID given %v: took %v; want the exit seen long before the 1m timeout", withPID, took)
		}
	}
}

// With Free, the exit of PID ends the wait: ready if the port is free
// then, pid gone if another process still holds it.
func TestWaitFreePIDGoneStillHeld(t *testing.T) {
	other, port := listener(t, "tcp4")
	srv := proctest.Start(t, proctest.Wait, proctest.Spec{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		time.Sleep(300 * time.Millisecond)
		_ = srv.Stop()
	}()
	ports, ready, gone := wait(t, readiness.Spec{Ports: []uint16{port}, Free: true, PID: srv.PID(), Timeout: time.Minute})
	wg.Wait()
	if ready || !gone || ports[0].Ready || ports[0].Free || len(ports[0].Holders) != 1 || ports[0].Holders[0].PID != other.PID() {
		t.Errorf("free wait on %d, which exited while %d holds the port: ready %v, pid gone %v, %+v; want pid gone, held by %d", srv.PID(), other.PID(), ready, gone, ports[0], other.PID())
	}
	if _, ready, gone = wait(t, readiness.Spec{Ports: []uint16{freePort(t, "tcp4")}, Free: true, PID: srv.PID(), Timeout: time.Minute}); !ready || gone {
		t.Errorf("free wait on a free port, PID %d gone already: ready %v, pid gone %v; want ready", srv.PID(), ready, gone)
	}
}

// A server that listens at once but answers 503 for its first second is
// ready with its first 200, and not before: the 200 was sent when the
// wait returned. Its address is the socket's own; the path is sent as
// given.
func TestWaitHTTPReadyAfterStatus(t *testing.T) {
	_, port, out := httpServer(t, "PROCTEST_DELAY=1s")
	ports, ready, gone := wait(t, readiness.Spec{Ports: []uint16{port}, HTTP: "/health?full=1", Timeout: 30 * time.Second})
	if !ready || gone || !ports[0].Ready || ports[0].HTTPStatus != 200 || ports[0].HTTPError != "" {
		t.Fatalf("ready %v, pid gone %v, %+v; want ready on a 200", ready, gone, ports[0])
	}
	if want := fmt.Sprintf("http://127.0.0.1:%d/health?full=1", port); ports[0].URL != want {
		t.Errorf("URL %q, want %q", ports[0].URL, want)
	}
	if line := proctest.ReadLine(t, out); line != "200" {
		t.Errorf("helper printed %q; want the 200 it sent before the wait returned", line)
	}
}

// A server error until the timeout is not ready, and the status is
// kept; a status of Accept is ready at once; a 404 is not ready by
// default (2xx); a redirect is followed to its end, or with NoFollow is
// its own status.
func TestWaitHTTPStatus(t *testing.T) {
	_, port, _ := httpServer(t, "PROCTEST_DELAY=1h", "PROCTEST_EARLY=500")
	ports, ready, gone := wait(t, readiness.Spec{Ports: []uint16{port}, HTTP: "/", Timeout: time.Second})
	if ready || gone || ports[0].Ready || ports[0].HTTPStatus != 500 || len(ports[0].Holders) != 1 {
		t.Errorf("a server answering 500: ready %v, pid gone %v, %+v; want the timeout, status 500, the holder named", ready, gone, ports[0])
	}
	if _, ready, _ = wait(t, readiness.Spec{Ports: []uint16{port}, HTTP: "/", Accept: readiness.Statuses{{200, 299}, {500, 500}}, Timeout: 10 * time.Second}); !ready {
		t.Errorf("a server answering 500 with Accept 200-299,500: not ready")
	}
	_, redir, _ := httpServer(t, "PROCTEST_REDIRECT=1")
	for _, c := range []struct {
		path     string
		noFollow bool
		accept   readiness.Statuses
		ready    bool
		status   int
		url      string
	}{
		{"/", false, nil, true, 200, "/ok"},
		{"/", true, nil, false, 302, "/"},
		{"/", true, readiness.Statuses{{300, 399}}, true, 302, "/"},
		{"/to-down", false, nil, false, 503, "/down"},
		{"/rel/a", false, nil, true, 200, "/rel/b"},
		{"/missing", false, nil, false, 404, "/missing"},
		{"/loop", false, nil, false, 302, "/loop"},
	} {
		ports, ready, _ = wait(t, readiness.Spec{Ports: []uint16{redir}, HTTP: c.path, NoFollow: c.noFollow, Accept: c.accept, Timeout: 300 * time.Millisecond})
		want := fmt.Sprintf("http://127.0.0.1:%d%s", redir, c.url)
		if ready != c.ready || ports[0].HTTPStatus != c.status || ports[0].URL != want {
			t.Errorf("GET %s (no follow %v, accept %v): ready %v, %+v; want ready %v, status %d from %s", c.path, c.noFollow, c.accept, ready, ports[0], c.ready, c.status, want)
		}
	}
	if !strings.Contains(ports[0].HTTPError, "more than 10 redirects") {
		t.Errorf("a redirect loop: %q", ports[0].HTTPError)
	}
}

// A health check slower than a try is not ready; with a longer
// HTTPTimeout it is.
func TestWaitHTTPTimeout(t *testing.T) {
	_, port, _ := httpServer(t, "PROCTEST_SLOW=1500ms")
	ports, ready, _ := wait(t, readiness.Spec{Ports: []uint16{port}, HTTP: "/", Timeout: 0})
	if ready || !strings.Contains(ports[0].HTTPError, "no answer within 1s") {
		t.Errorf("a 1.5s answer with the default try: ready %v, %+v", ready, ports[0])
	}
	if ports, ready, _ = wait(t, readiness.Spec{Ports: []uint16{port}, HTTP: "/", HTTPTimeout: 5 * time.Second, Timeout: 0}); !ready || ports[0].HTTPStatus != 200 {
		t.Errorf("a 1.5s answer with HTTPTimeout 5s: ready %v, %+v", ready, ports[0])
	}
}

// A server that answers nothing is given a second a try, and the wait
// says so.
func TestWaitHTTPNoAnswer(t *testing.T) {
	_, port, _ := httpServer(t, "PROCTEST_HANG=1")
	start := time.Now()
	ports, ready, _ := wait(t, readiness.Spec{Ports: []uint16{port}, HTTP: "/", Timeout: 1500 * time.Millisecond})
	if ready || ports[0].HTTPStatus != 0 || !strings.Contains(ports[0].HTTPError, "no answer within 1s") {
		t.Errorf("a server that answers nothing: ready %v, %+v; want not ready, no answer within 1s", ready, ports[0])
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("took %v; want each try cut at 1s", took)
	}
}

// A wildcard listener is asked on the loopback of its family; a UDP
// socket is never asked, and never ready for HTTP; a port with nothing
// on it has no GET.
func TestWaitHTTPAddresses(t *testing.T) {
	_, any4, _ := httpServer(t, "PROCTEST_AT=tcp4:0.0.0.0:0")
	ports, ready, _ := wait(t, readiness.Spec{Ports: []uint16{any4}, HTTP: "/", Timeout: 10 * time.Second})
	if want := fmt.Sprintf("http://127.0.0.1:%d/", any4); !ready || ports[0].URL != want {
		t.Errorf("listener on 0.0.0.0: ready %v, %+v; want ready, asked at %s", ready, ports[0], want)
	}
	if l, err := net.Listen("tcp6", "[::1]:0"); err == nil {
		l.Close()
		_, any6, _ := httpServer(t, "PROCTEST_AT=tcp6:[::]:0")
		ports, ready, _ := wait(t, readiness.Spec{Ports: []uint16{any6}, HTTP: "/", Timeout: 10 * time.Second})
		if want := fmt.Sprintf("http://[::1]:%d/", any6); !ready || ports[0].URL != want {
			t.Errorf("listener on [::]: ready %v, %+v; want ready, asked at %s", ready, ports[0], want)
		}
	}
	_, udp := listener(t, "udp4")
	ports, ready, _ = wait(t, readiness.Spec{Ports: []uint16{udp}, HTTP: "/", Timeout: 300 * time.Millisecond})
	if ready || ports[0].URL != "" || !strings.Contains(ports[0].HTTPError, "UDP") {
		t.Errorf("UDP only: ready %v, %+v; want not ready, no GET, UDP named", ready, ports[0])
	}
	ports, ready, _ = wait(t, readiness.Spec{Ports: []uint16{freePort(t, "tcp4")}, HTTP: "/", Timeout: 300 * time.Millisecond})
	if ready || ports[0].URL != "" || ports[0].HTTPError != "" || !ports[0].Free {
		t.Errorf("nothing on the port: ready %v, %+v; want not ready, free, no GET", ready, ports[0])
	}
}

// With Owned, an HTTP server already on the port is not asked: it is not
// the server waited for.
func TestWaitHTTPOwned(t *testing.T) {
	other, port, _ := httpServer(t)
	srv := proctest.Start(t, proctest.Wait, proctest.Spec{})
	ports, ready, gone := wait(t, readiness.Spec{Ports: []uint16{port}, HTTP: "/", PID: srv.PID(), Owned: true, Timeout: 300 * time.Millisecond})
	if ready || gone || ports[0].URL != "" || len(ports[0].Holders) != 0 {
		t.Errorf("owned by %d, another server on the port: ready %v, pid gone %v, %+v; want the timeout, no GET", srv.PID(), ready, gone, ports[0])
	}
	if _, ready, _ := wait(t, readiness.Spec{Ports: []uint16{port}, HTTP: "/", PID: other.PID(), Owned: true, Timeout: 10 * time.Second}); !ready {
		t.Errorf("owned by the server %d itself: not ready", other.PID())
	}
}

// A server that dies while it answers 500 ends an HTTP wait at once.
func TestWaitHTTPServerDies(t *testing.T) {
	srv, port, _ := httpServer(t, "PROCTEST_DELAY=1h", "PROCTEST_EARLY=500", "PROCTEST_DIE=500ms")
	start := time.Now()
	_, ready, gone := wait(t, readiness.Spec{Ports: []uint16{port}, HTTP: "/", PID: srv.PID(), Timeout: time.Minute})
	if ready || !gone {
		t.Errorf("HTTP wait on %d, which died: ready %v, pid gone %v; want pid gone", srv.PID(), ready, gone)
	}
	if took := time.Since(start); took > 30*time.Second {
		t.Errorf("took %v; want the exit seen long before the 1m timeout", took)
	}
}

// Workers that share their master's socket are holders of one listener:
// the socket is listed once, each holder once.
func TestWaitSharedSocketListedOnce(t *testing.T) {
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	master := proctest.Start(t, modeSharedListen, proctest.Spec{Stdout: pw})
	pw.Close()
	fields := strings.Fields(proctest.ReadLine(t, pr))
	if len(fields) != 3 {
		t.Fatalf("shared-listen printed %q; want the port and two PIDs", fields)
	}
	port, _ := strconv.Atoi(fields[0])
	want := []int{master.PID()}
	for _, f := range fields[1:] {
		pid, _ := strconv.Atoi(f)
		want = append(want, pid)
	}
	slices.Sort(want)
	ports, ready, _ := wait(t, readiness.Spec{Ports: []uint16{uint16(port)}, Timeout: 10 * time.Second})
	var got []int
	for _, h := range ports[0].Holders {
		got = append(got, h.PID)
	}
	slices.Sort(got)
	if !ready || len(ports[0].Listeners) != 1 || !slices.Equal(got, want) {
		t.Errorf("a socket shared by %v: ready %v, listeners %v, holders %v; want the one listener, each holder once", want, ready, ports[0].Listeners, got)
	}
}

// A spec that cannot be waited for is refused, naming the bad value,
// before anything is looked at.
func TestWaitBadSpec(t *testing.T) {
	for _, c := range []struct {
		spec readiness.Spec
		want string
	}{
		{readiness.Spec{}, "no port, URL, socket or file"},
		{readiness.Spec{Ports: []uint16{80, 0}}, `"0"`},
		{readiness.Spec{Ports: []uint16{80}, PID: -1}, "-1"},
		{readiness.Spec{Ports: []uint16{80}, Owned: true}, "PID"},
		{readiness.Spec{Ports: []uint16{80}, Timeout: -time.Second}, "-1s"},
		{readiness.Spec{Ports: []uint16{80}, Interval: -time.Millisecond}, "-1ms"},
		{readiness.Spec{Ports: []uint16{80}, Free: true, PID: 1, Owned: true}, "Owned"},
		{readiness.Spec{Ports: []uint16{80}, Free: true, HTTP: "/"}, `"/"`},
		{readiness.Spec{Ports: []uint16{80}, Accept: readiness.Statuses{{404, 404}}}, "404"},
		{readiness.Spec{Ports: []uint16{80}, Proto: "sctp"}, `"sctp"`},
		{readiness.Spec{Ports: []uint16{80}, HTTP: "/", HTTPTimeout: -time.Second}, "-1s"},
		{readiness.Spec{Remote: []readiness.Remote{{Host: "db"}}}, `"0" of db`},
		{readiness.Spec{URLs: []readiness.URL{{Host: "x", Port: 80, Path: "/"}}, Free: true}, "http://x:80/"},
		{readiness.Spec{Ports: []uint16{80}, HTTP: "health"}, `"health"`},
		{readiness.Spec{Ports: []uint16{80}, HTTP: "/a b"}, `"/a b"`},
		{readiness.Spec{Ports: []uint16{80}, HTTP: "/a\r\nHost: x"}, `"/a\r\nHost: x"`},
	} {
		r, err := c.spec.Wait()
		if err == nil || !strings.Contains(err.Error(), c.want) || r.Ports != nil || r.Ready || r.PIDGone {
			t.Errorf("%+v.Wait() = %+v, %v; want an error naming %s", c.spec, r, err, c.want)
		}
	}
}

// A program that starts a server waits until the server listens before
// it uses it, and stops waiting at once should the server die first. The
// server here is this process's own listener.
func ExampleSpec_Wait() {
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer l.Close()
	port := uint16(l.Addr().(*net.TCPAddr).Port)
	r, err := readiness.Spec{Ports: []uint16{port}, PID: os.Getpid(), Owned: true, Timeout: 10 * time.Second}.Wait()
	if err != nil {
		panic(err)
	}
	fmt.Println("ready:", r.Ready, "server gone:", r.PIDGone)
	fmt.Println("held by this process:", r.Ports[0].Holders[0].PID == os.Getpid())
	// Output:
	// ready: true server gone: false
	// held by this process: true
}

// stopLater stops p 300 ms from now, while a wait for it is under way;
// the function it returns waits for the stop.
func stopLater(p *proctest.Proc) (stopped func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		time.Sleep(300 * time.Millisecond)
		_ = p.Stop()
	}()
	return func() { <-done }
}
