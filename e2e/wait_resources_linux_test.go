package e2e

import (
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The forms users of wait-on, wait-port, kill-port and fkill type, and
// what tether answers to each: a port after a colon or a host of this
// machine, another machine's port (wait connects; reclaim, ps and run
// refuse), a file, a unix socket, HTTP over a unix socket, 2xx by
// default with redirects followed, and every resource at once.

func TestWaitColonPortAndLocalHost(t *testing.T) {
	t.Parallel()
	port := freePort(t, "tcp")
	serve(t, "PROCTEST_LISTEN=tcp4:127.0.0.1:"+port)
	for _, p := range []string{":" + port, "localhost:" + port, "127.0.0.1:" + port} {
		if r, _ := timedWait(t, "-p", p, "--timeout", "20s"); r.code != 0 || !strings.Contains(r.stdout, "port "+port+": tcp 127.0.0.1:"+port) {
			t.Errorf("wait -p %s: %+v; want exit 0, the port's listener", p, r)
		}
	}
	// reclaim --dry-run and ps take the same forms.
	if r := tether(t, nil, "reclaim", "-p", ":"+port, "--dry-run"); r.code != 1 || !strings.Contains(r.stdout, "port "+port+": held by PID") {
		t.Errorf("reclaim -p :%s --dry-run: %+v", port, r)
	}
	if r := tether(t, nil, "ps", "-p", "localhost:"+port); r.code != 0 || !strings.Contains(r.stdout, "tcp/"+port) {
		t.Errorf("ps -p localhost:%s: %+v", port, r)
	}
}

// Another machine's port: wait is ready once a connection is accepted
// and not while it is refused; reclaim, ps and run --port refuse it,
// signalling nothing.
func TestWaitRemotePort(t *testing.T) {
	t.Parallel()
	// 192.0.2.0/24 is for documentation: no machine answers there, so a
	// connection to it is refused or times out, and never accepted.
	r, _ := timedWait(t, "-p", "192.0.2.1:9", "--timeout", "1500ms")
	if r.code != 1 || !strings.Contains(r.stderr, "tcp 192.0.2.1:9: ") {
		t.Errorf("wait for a port no machine serves: %+v; want exit 1, naming it", r)
	}
	for _, args := range [][]string{{"reclaim", "-p", "192.0.2.1:80", "--foreign"}, {"ps", "-p", "192.0.2.1:80"}, {"run", "-p", "192.0.2.1:80", "--", "true"}} {
		r := tether(t, nil, args...)
		if r.code != exitUsage || !strings.Contains(r.stderr, "192.0.2.1 is not this machine") || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
			t.Errorf("%v: %+v; want exit 125 and one line", args, r)
		}
	}
}

// HTTP as wait-on means it: 2xx, redirects followed, a 404 not ready;
// over a unix socket too; a socket that accepts; a file there; all at
// once, each one missing named at the timeout.
func TestWaitURLSocketFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sock := filepath.Join(dir, "app.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		_ = http.Serve(l, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Path {
			case "/health":
				w.WriteHeader(200)
			case "/old":
				http.Redirect(w, r, "/down", http.StatusFound)
			case "/down":
				w.WriteHeader(503)
			default:
				w.WriteHeader(404)
			}
		}))
	}()
	file := filepath.Join(dir, "ready")
	go func() {
		time.Sleep(500 * time.Millisecond)
		_ = os.WriteFile(file, nil, 0o600)
	}()
	u := "http://unix:" + sock + ":/health"
	r, _ := timedWait(t, "--url", u, "--socket", sock, "--file", file, "--timeout", "20s")
	if r.code != 0 || !strings.Contains(r.stdout, "GET "+u+": answered 200") || !strings.Contains(r.stdout, "socket "+sock+": accepted") || !strings.Contains(r.stdout, "file "+file+": there") {
		t.Errorf("wait for a URL on a socket, the socket and a file made after 0.5s: %+v", r)
	}
	for path, want := range map[string]string{
		"/missing": "answered 404, not 200-299",
		"/old":     "GET http://unix:" + sock + ":/down answered 503, not 200-299",
	} {
		r, _ := timedWait(t, "--url", "http://unix:"+sock+":"+path, "--file", file, "--timeout", "300ms")
		if r.code != 1 || !strings.Contains(r.stderr, want) || strings.Contains(r.stderr, "file ") {
			t.Errorf("wait --url %s: %+v; want exit 1 naming %q and not the file", path, r, want)
		}
	}
	if r, _ := timedWait(t, "--url", "http://unix:"+sock+":/missing", "--status", "200-299,404", "--timeout", "5s"); r.code != 0 {
		t.Errorf("--status 200-299,404 on a 404: %+v", r)
	}
	if r, _ := timedWait(t, "--url", "http://unix:"+sock+":/old", "--no-follow", "--status", "302", "--timeout", "5s"); r.code != 0 {
		t.Errorf("--no-follow --status 302 on a 302: %+v", r)
	}
	os.Remove(file)
	if r, _ := timedWait(t, "--file", file, "--free", "--timeout", "5s"); r.code != 0 {
		t.Errorf("--file --free of a file gone: %+v", r)
	}
}

// An https dev server with a self-signed certificate: not ready until
// --insecure (-k) accepts it, then ready; a redirect to a 503 is not; a
// tether alone, with no other program beside it or on PATH, speaks TLS
// itself.
func TestWaitHTTPS(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {})
	mux.HandleFunc("/old", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/down", http.StatusFound) })
	mux.HandleFunc("/down", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(503) })
	srv := httptest.NewUnstartedServer(mux)
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.StartTLS()
	t.Cleanup(srv.Close)
	if r, _ := timedWait(t, "--url", srv.URL, "--timeout", "300ms"); r.code != 1 || !strings.Contains(r.stderr, "certificate signed by unknown authority") {
		t.Errorf("a self-signed certificate without --insecure: %+v; want exit 1 naming the certificate", r)
	}
	if r, _ := timedWait(t, "-k", "--url", srv.URL, "--timeout", "20s"); r.code != 0 || !strings.Contains(r.stdout, "GET "+srv.URL+"/: answered 200") {
		t.Errorf("-k on a self-signed certificate: %+v", r)
	}
	if r, _ := timedWait(t, "--insecure", "--url", srv.URL+"/old", "--timeout", "300ms"); r.code != 1 || !strings.Contains(r.stderr, "GET "+srv.URL+"/down answered 503, not 200-299") {
		t.Errorf("a redirect to a 503: %+v", r)
	}
	alone := filepath.Join(t.TempDir(), "tether")
	if err := os.Link(tetherBin, alone); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(alone, "wait", "-k", "--url", srv.URL, "--timeout", "20s")
	cmd.Env = []string{"PATH=/nonexistent"}
	out, err := cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); code != 0 || !strings.Contains(string(out), "GET "+srv.URL+"/: answered 200") {
		t.Errorf("a tether alone, no PATH: %v, exit %d: %s", err, code, out)
	}
}

// --timeout forever waits until interrupted; Ctrl-C (SIGINT) ends it as
// it ends any command.
func TestWaitForever(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(tetherBin, "wait", "--file", filepath.Join(t.TempDir(), "never"), "--timeout", "forever")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond)
	if cmd.ProcessState != nil {
		t.Fatal("wait --timeout forever ended by itself")
	}
	_ = cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	ee, ok := err.(*exec.ExitError)
	if !ok {
		t.Fatalf("after SIGINT: %v", err)
	}
	if ws := ee.Sys().(syscall.WaitStatus); !(ws.Signaled() && ws.Signal() == syscall.SIGINT) && ee.ExitCode() != 130 {
		t.Errorf("after SIGINT: %v; want the interrupt's status", err)
	}
}

// A port root holds, waited for by another user: held, and said so.
func TestWaitOutOfSightHolderNamed(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root: a port of root's waited for by uid 65534")
	}
	t.Parallel()
	port := freePort(t, "tcp")
	serve(t, "PROCTEST_LISTEN=tcp4:127.0.0.1:"+port)
	listening(t, port)
	out, code := tetherAs(t, &syscall.Credential{Uid: 65534, Gid: 65534}, nil, "wait", "-p", port, "--timeout", "10s")
	if want := "port " + port + ": held by a process of uid 0, out of sight: run as root to see it"; code != 0 || !strings.Contains(out, want) {
		t.Errorf("wait as uid 65534 on root's port: exit %d %q; want 0 and %q", code, out, want)
	}
	// Beside a resource that is not ready, the port is still ready: only
	// the file is named at the timeout.
	never := filepath.Join(sharedTemp(t), "never")
	out, code = tetherAs(t, &syscall.Credential{Uid: 65534, Gid: 65534}, nil, "wait", "-p", port, "--file", never, "--timeout", "300ms")
	if code != 1 || !strings.Contains(out, "file "+never+": not there") || strings.Contains(out, "no listener") {
		t.Errorf("wait as uid 65534 on root's port and a file never made: exit %d %q; want 1, naming the file alone", code, out)
	}
}

// Each malformed form: exit 125, one line naming it, nothing waited on.
func TestWaitBadForms(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"-p", ":"}, `invalid port ":": no port after ':'`},
		{[]string{"-p", "host:"}, `invalid port "host:": no port after ':'`},
		{[]string{"-p", ":0"}, `invalid port ":0": must be 1-65535`},
		{[]string{"-p", "[::1]:"}, `invalid port "[::1]:": no port after ':'`},
		{[]string{"-p", "a:b:c"}, `more than one ':'`},
		{[]string{"-p", "[::1]"}, `want [IPV6]:PORT`},
		{[]string{"--url", "http://x/", "--status", "299-200"}, `reversed`},
		{[]string{"--file", dir}, `is a directory, not a file`},
		{[]string{"--url", "https://unix:/run/a.sock:/"}, `https over a unix socket is not supported`},
		{[]string{"-p", "80", "--insecure"}, `--insecure needs an https --url`},
		{[]string{"--url", "http://a:b:c/"}, `more than one ':'`},
		{[]string{"-p", "80", "--timeout", "5000"}, `give a unit`},
		{[]string{"-p", "80", "--tcp", "--udp"}, `--tcp with --udp`},
		{[]string{"--file", "/x", "--status", "200"}, `--status 200 needs --http or --url`},
	} {
		start := time.Now()
		r := tether(t, nil, append([]string{"wait"}, c.args...)...)
		lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
		if r.code != exitUsage || len(lines) != 1 || !strings.Contains(r.stderr, c.says) || time.Since(start) > 5*time.Second {
			t.Errorf("wait %v: %+v; want exit 125 and one line saying %q", c.args, r, c.says)
		}
	}
}
