package proctest

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Network helper modes, built in because the tests of several packages
// (reclaim's library and the binary's) need the same servers and
// clients of a port.
const (
	// HTTP serves HTTP on PROCTEST_AT ("tcp4:0.0.0.0:0"; by default the
	// IPv4 loopback, any port), prints its port and serves until stdin
	// closes. Until PROCTEST_DELAY has passed since it started, it
	// answers PROCTEST_EARLY (503 by default), and 200 after, printing
	// "200" before its first 200; with PROCTEST_HANG it answers nothing
	// at all; with PROCTEST_REDIRECT, / is a 302 to /ok, /to-down a 302
	// to /down (a 503), /loop a 302 to itself, /rel/a a 301 to the
	// relative b, /missing a 404; with PROCTEST_SLOW=D it answers 200
	// after D. With
	// PROCTEST_DIE it exits 1 that long after it started: a server that
	// crashes.
	HTTP = "http"
	// SharedListen listens on a loopback TCP port and starts
	// PROCTEST_WORKERS (default 2) Wait helpers that hold the same
	// socket, as the workers of nginx or a preforking server hold their
	// master's; it prints the port and the workers' PIDs on one line,
	// and ends with its stdin, which they share.
	SharedListen = "shared-listen"
	// Connect connects to 127.0.0.1:PROCTEST_PORT, prints "connected"
	// and holds the connection until stdin closes: a client of the port,
	// which no reclaim of the port may take for a holder.
	Connect = "connect"
	// Listen serves PROCTEST_LISTEN (tcp4, tcp6, udp4 or udp6; tcp4 by
	// default) on a loopback port, prints the port, and waits for stdin
	// to close; with PROCTEST_IGNORE_TERM set, only KILL ends it before
	// that.
	Listen = "loopback-listen"
)

// netModes registers them, after the modes they start.
func netModes() {
	builtin(HTTP, serveHTTP)
	builtin(Listen, listen)
	builtin(SharedListen, sharedListen)
	Starts(SharedListen, Wait)
	builtin(Connect, func() {
		c, err := net.Dial("tcp4", "127.0.0.1:"+os.Getenv("PROCTEST_PORT"))
		if err != nil {
			fmt.Fprintln(os.Stderr, "connect:", err)
			os.Exit(2)
		}
		defer c.Close()
		fmt.Println("connected")
		_, _ = io.Copy(io.Discard, os.Stdin)
	})
}

func listen() {
	var port int
	switch kind := os.Getenv("PROCTEST_LISTEN"); kind {
	case "udp4", "udp6":
		addr := map[string]string{"udp4": "127.0.0.1:0", "udp6": "[::1]:0"}[kind]
		c, err := net.ListenPacket(kind, addr)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		port = c.LocalAddr().(*net.UDPAddr).Port
	default:
		network, addr := "tcp4", "127.0.0.1:0"
		if kind == "tcp6" {
			network, addr = "tcp6", "[::1]:0"
		}
		l, err := net.Listen(network, addr)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		port = l.Addr().(*net.TCPAddr).Port
	}
	if os.Getenv("PROCTEST_IGNORE_TERM") != "" {
		signal.Ignore(syscall.SIGTERM)
	}
	fmt.Println(port)
	_, _ = io.Copy(io.Discard, os.Stdin)
}

func serveHTTP() {
	network, addr, ok := strings.Cut(os.Getenv("PROCTEST_AT"), ":")
	if !ok {
		network, addr = "tcp4", "127.0.0.1:0"
	}
	l, err := net.Listen(network, addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "http:", err)
		os.Exit(2)
	}
	start := time.Now()
	delay, _ := time.ParseDuration(os.Getenv("PROCTEST_DELAY"))
	early, err := strconv.Atoi(os.Getenv("PROCTEST_EARLY"))
	if err != nil {
		early = http.StatusServiceUnavailable
	}
	var first sync.Once
	go func() {
		_ = http.Serve(l, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch {
			case os.Getenv("PROCTEST_HANG") != "":
				<-r.Context().Done()
			case os.Getenv("PROCTEST_REDIRECT") != "" && r.URL.Path == "/":
				http.Redirect(w, r, "/ok", http.StatusFound)
			case os.Getenv("PROCTEST_REDIRECT") != "" && r.URL.Path == "/to-down":
				http.Redirect(w, r, "/down", http.StatusFound)
			case os.Getenv("PROCTEST_REDIRECT") != "" && r.URL.Path == "/down":
				w.WriteHeader(http.StatusServiceUnavailable)
			case os.Getenv("PROCTEST_REDIRECT") != "" && r.URL.Path == "/loop":
				http.Redirect(w, r, "/loop", http.StatusFound)
			case os.Getenv("PROCTEST_REDIRECT") != "" && r.URL.Path == "/rel/a":
				w.Header().Set("Location", "b")
				w.WriteHeader(http.StatusMovedPermanently)
			case os.Getenv("PROCTEST_REDIRECT") != "" && r.URL.Path == "/missing":
				w.WriteHeader(http.StatusNotFound)
			case os.Getenv("PROCTEST_SLOW") != "":
				d, _ := time.ParseDuration(os.Getenv("PROCTEST_SLOW"))
				time.Sleep(d)
				w.WriteHeader(http.StatusOK)
			case time.Since(start) < delay:
				w.WriteHeader(early)
			default:
				first.Do(func() { fmt.Println("200") })
				w.WriteHeader(http.StatusOK)
			}
		}))
	}()
	if d, err := time.ParseDuration(os.Getenv("PROCTEST_DIE")); err == nil {
		time.AfterFunc(d, func() { os.Exit(1) })
	}
	fmt.Println(l.Addr().(*net.TCPAddr).Port)
	_, _ = io.Copy(io.Discard, os.Stdin)
}

func sharedListen() {
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "shared-listen:", err)
		os.Exit(2)
	}
	f, err := l.(*net.TCPListener).File()
	if err != nil {
		fmt.Fprintln(os.Stderr, "shared-listen:", err)
		os.Exit(2)
	}
	n, err := strconv.Atoi(os.Getenv("PROCTEST_WORKERS"))
	if err != nil {
		n = 2
	}
	line := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	var workers []*exec.Cmd
	for range n {
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), Mode(Wait))
		cmd.Stdin, cmd.Stderr = os.Stdin, os.Stderr
		cmd.ExtraFiles = []*os.File{f}
		if err := cmd.Start(); err != nil {
			fmt.Fprintln(os.Stderr, "shared-listen:", err)
			os.Exit(2)
		}
		workers = append(workers, cmd)
		line += " " + strconv.Itoa(cmd.Process.Pid)
	}
	fmt.Println(line)
	_, _ = io.Copy(io.Discard, os.Stdin)
	for _, w := range workers {
		_ = w.Wait()
	}
}

// RenamedListener starts a server that writes its title over its
// environment, as nginx and redis do: Perl, listening on a loopback TCP
// port, renamed with $0. It returns the server's PID, its port, and a
// channel closed once it has exited; the test's cleanup kills it. It
// skips the test where there is no perl.
func RenamedListener(t testing.TB) (pid int, port string, exited <-chan struct{}) {
	t.Helper()
	perl, err := exec.LookPath("perl")
	if err != nil {
		t.Skip("no perl")
	}
	cmd := exec.Command(perl, "-MIO::Socket::INET", "-e",
		`my $s = IO::Socket::INET->new(Listen => 5, LocalAddr => "127.0.0.1", LocalPort => 0) or die; $0 = "srv: master"; $| = 1; print $s->sockport, "\n"; sleep 120`)
	// An environment long enough for the title to be written over.
	cmd.Env = []string{"PATH=/usr/bin:/bin", "LONG_ENOUGH_TO_BE_WRITTEN_OVER=" + strings.Repeat("x", 64)}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-done })
	return cmd.Process.Pid, ReadLine(t, out), done
}
