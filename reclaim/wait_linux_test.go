package reclaim_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/proctest"
	"github.com/tetherproc/tether/probe"
	"github.com/tetherproc/tether/reclaim"
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

// freePort is a port of network (tcp4 or udp4) on the loopback that
// nothing serves now.
func freePort(t *testing.T, network string) uint16 {
	t.Helper()
	var addr net.Addr
	if network == "udp4" {
		c, err := net.ListenPacket(network, "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr = c.LocalAddr()
		c.Close()
	} else {
		l, err := net.Listen(network, "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr = l.Addr()
		l.Close()
	}
	_, port, _ := net.SplitHostPort(addr.String())
	n, _ := strconv.Atoi(port)
	return uint16(n)
}

// listener starts the listen helper on a loopback port of kind (tcp4,
// tcp6, udp4, udp6) and returns it and its port.
func listener(t *testing.T, kind string) (*proctest.Proc, uint16) {
	t.Helper()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	p := proctest.Start(t, modeListen, proctest.Spec{Env: []string{"PROCTEST_LISTEN=" + kind}, Stdout: pw})
	port, err := strconv.Atoi(proctest.ReadLine(t, pr))
	if err != nil {
		t.Fatalf("listen helper %s printed no port: %v", kind, err)
	}
	return p, uint16(port)
}

func wait(t *testing.T, s reclaim.WaitSpec) (ports []reclaim.Readiness, ready, gone bool) {
	t.Helper()
	ports, ready, gone, err := s.Wait()
	if err != nil {
		t.Fatalf("%+v.Wait(): %v", s, err)
	}
	if len(ports) == 0 {
		t.Fatalf("%+v.Wait() described no port", s)
	}
	return ports, ready, gone
}

// A port already served is ready at the first check, and its listener
// and holder are named in the JSON shape of tether wait --json; a port
// asked for twice is waited for once.
func TestWaitReadyNamesHolder(t *testing.T) {
	p, port := listener(t, "tcp4")
	ports, ready, gone := wait(t, reclaim.WaitSpec{Ports: []uint16{port, port}, PID: p.PID(), Timeout: 20 * time.Second})
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
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf(`{"port":%d,"ready":true,"listeners":[{"proto":"tcp","addr":"127.0.0.1","port":%d}],"holders":[{"pid":%d,`, port, port, p.PID())
	if !strings.HasPrefix(string(data), want) {
		t.Errorf("JSON %s; want it to start %s", data, want)
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
	ports, ready, gone := wait(t, reclaim.WaitSpec{Ports: []uint16{port}, PID: p.PID(), Owned: true, Timeout: 30 * time.Second})
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
	ports, ready, gone := wait(t, reclaim.WaitSpec{Ports: []uint16{port}, PID: srv.PID(), Owned: true, Timeout: 500 * time.Millisecond})
	if ready || gone || ports[0].Ready || len(ports[0].Holders) != 0 {
		t.Errorf("owned by %d, another program on the port: ready %v, pid gone %v, %+v; want the timeout, no holder of its own", srv.PID(), ready, gone, ports[0])
	}
	ports, ready, _ = wait(t, reclaim.WaitSpec{Ports: []uint16{port}, PID: srv.PID(), Timeout: 10 * time.Second})
	if !ready || len(ports[0].Holders) != 1 || ports[0].Holders[0].PID != other.PID() {
		t.Errorf("not owned: ready %v, %+v; want ready, held by %d", ready, ports[0], other.PID())
	}
	if _, ready, _ = wait(t, reclaim.WaitSpec{Ports: []uint16{port}, PID: other.PID(), Owned: true, Timeout: 10 * time.Second}); !ready {
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
	ports, ready, gone := wait(t, reclaim.WaitSpec{Ports: []uint16{port}, PID: z.PID(), Timeout: time.Minute})
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
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		time.Sleep(300 * time.Millisecond)
		_ = srv.Stop()
	}()
	start := time.Now()
	_, ready, gone := wait(t, reclaim.WaitSpec{Ports: []uint16{port}, PID: srv.PID(), Timeout: time.Minute})
	wg.Wait()
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
	ports, ready, gone := wait(t, reclaim.WaitSpec{Ports: []uint16{port}, Timeout: 500 * time.Millisecond, Interval: 10 * time.Millisecond})
	if took := time.Since(start); took < 500*time.Millisecond {
		t.Errorf("gave up after %v; want the whole timeout", took)
	}
	if ready || gone || len(ports) != 1 || ports[0].Port != port || ports[0].Ready || ports[0].Listeners != nil {
		t.Errorf("ready %v, pid gone %v, %+v; want the timeout, port %d not ready", ready, gone, ports, port)
	}
	if _, ready, gone := wait(t, reclaim.WaitSpec{Ports: []uint16{port}}); ready || gone {
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
	ports, ready, _ := wait(t, reclaim.WaitSpec{Ports: []uint16{v6, udp, late}, Timeout: 30 * time.Second})
	if !ready {
		t.Fatalf("not ready: %+v", ports)
	}
	for i, want := range []string{fmt.Sprintf("tcp [::1]:%d", v6), fmt.Sprintf("udp [::1]:%d", udp), fmt.Sprintf("udp 127.0.0.1:%d", late)} {
		if r := ports[i]; !r.Ready || len(r.Listeners) != 1 || r.Listeners[0].String() != want {
			t.Errorf("port %d: %+v; want ready, the listener %s", r.Port, r, want)
		}
	}
}

// A spec that cannot be waited for is refused, naming the bad value,
// before anything is looked at.
func TestWaitBadSpec(t *testing.T) {
	for _, c := range []struct {
		spec reclaim.WaitSpec
		want string
	}{
		{reclaim.WaitSpec{}, "no port"},
		{reclaim.WaitSpec{Ports: []uint16{80, 0}}, `"0"`},
		{reclaim.WaitSpec{Ports: []uint16{80}, PID: -1}, "-1"},
		{reclaim.WaitSpec{Ports: []uint16{80}, Owned: true}, "PID"},
		{reclaim.WaitSpec{Ports: []uint16{80}, Timeout: -time.Second}, "-1s"},
		{reclaim.WaitSpec{Ports: []uint16{80}, Interval: -time.Millisecond}, "-1ms"},
	} {
		ports, ready, gone, err := c.spec.Wait()
		if err == nil || !strings.Contains(err.Error(), c.want) || ports != nil || ready || gone {
			t.Errorf("%+v.Wait() = %v, %v, %v, %v; want an error naming %s", c.spec, ports, ready, gone, err, c.want)
		}
	}
}

// A program that starts a server waits until the server listens before
// it uses it, and stops waiting at once should the server die first. The
// server here is this process's own listener.
func ExampleWaitSpec_Wait() {
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer l.Close()
	port := uint16(l.Addr().(*net.TCPAddr).Port)
	ports, ready, pidGone, err := reclaim.WaitSpec{Ports: []uint16{port}, PID: os.Getpid(), Owned: true, Timeout: 10 * time.Second}.Wait()
	if err != nil {
		panic(err)
	}
	fmt.Println("ready:", ready, "server gone:", pidGone)
	fmt.Println("held by this process:", ports[0].Holders[0].PID == os.Getpid())
	// Output:
	// ready: true server gone: false
	// held by this process: true
}
