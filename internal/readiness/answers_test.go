package readiness

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// rawServer answers each GET on a loopback port with what answer says
// for its request line, written as is (nothing: the connection closed),
// and keeps the connection open until the test ends: the answers a library's own tests would not
// write, as some servers send them. It returns the port.
func rawServer(t *testing.T, answer func(requestLine string) string) uint16 {
	t.Helper()
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns []net.Conn
	done := make(chan struct{})
	t.Cleanup(func() {
		l.Close()
		<-done
		for _, c := range conns {
			c.Close()
		}
	})
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
			go func() {
				r := bufio.NewReader(c)
				line, _ := r.ReadString('\n')
				for h, err := r.ReadString('\n'); err == nil && strings.TrimSpace(h) != ""; h, err = r.ReadString('\n') {
				}
				if a := answer(strings.TrimSpace(line)); a != "" {
					_, _ = c.Write([]byte(a))
				} else {
					c.Close()
				}
			}()
		}
	}()
	return uint16(l.Addr().(*net.TCPAddr).Port)
}

// checkURL waits for the URL as s says and returns its target as the
// wait leaves it.
func checkURL(t *testing.T, raw string, s Spec) Target {
	t.Helper()
	u, err := ParseURL(raw)
	if err != nil {
		t.Fatal(err)
	}
	s.URLs = []URL{u}
	r, err := s.Wait()
	if err != nil {
		t.Fatal(err)
	}
	return r.Targets[0]
}

// Answers the GET once sent over raw sockets misread, each now ready as
// HTTP/1.1 (RFC 9110, 9112) says: interim 1xx answers before the final
// one, a Location that is a query alone (RFC 3986: the same path), a
// chunked body, and headers ended by bare LFs on a connection the server
// keeps open.
func TestWaitAnswersAsHTTPSays(t *testing.T) {
	const ok = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
	for _, c := range []struct {
		name, path, answer, url string
	}{
		{"100 Continue first", "/", "HTTP/1.1 100 Continue\r\n\r\n" + ok, "/"},
		{"103 Early Hints first", "/", "HTTP/1.1 103 Early Hints\r\nLink: </s.css>; rel=preload\r\n\r\n" + ok, "/"},
		{"chunked", "/", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n", "/"},
		{"bare LF, kept open", "/", "HTTP/1.1 200 OK\nContent-Type: text/plain\nContent-Length: 2\n\nok", "/"},
		{"a body never read", "/", "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n" + strings.Repeat("x", 1<<16), "/"},
		{"Location: ?x=1", "/app/page", "", "/app/page?x=1"},
	} {
		port := rawServer(t, func(line string) string {
			switch {
			case c.answer != "":
				return c.answer
			case line == "GET /app/page HTTP/1.1":
				return "HTTP/1.1 302 Found\r\nLocation: ?x=1\r\nContent-Length: 0\r\n\r\n"
			case line == "GET /app/page?x=1 HTTP/1.1":
				return ok
			}
			return "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n"
		})
		base := fmt.Sprintf("http://127.0.0.1:%d", port)
		tg := checkURL(t, base+c.path, Spec{Timeout: 2 * time.Second})
		if !tg.Ready || tg.HTTPStatus != 200 {
			t.Errorf("%s: %+v; want ready on the 200", c.name, tg)
		}
		if c.url != c.path && !strings.Contains(tg.Detail, "GET "+base+c.url+" answered 200") {
			t.Errorf("%s: %q; want the GET of %s named", c.name, tg.Detail, base+c.url)
		}
	}
}

// An answer that is no HTTP (an SSH server on the port), a 3xx with no
// Location, and a server that closes the connection without a word, are
// not ready, and say why.
func TestWaitAnswersNotHTTP(t *testing.T) {
	for _, c := range []struct{ answer, why string }{
		{"SSH-2.0-OpenSSH_9.6\r\n", "malformed HTTP response"},
		{"HTTP/1.1 302 Found\r\nContent-Length: 0\r\n\r\n", "a 302 with no Location to follow"},
		{"", "connection closed with no answer"},
	} {
		port := rawServer(t, func(string) string { return c.answer })
		tg := checkURL(t, fmt.Sprintf("http://127.0.0.1:%d/", port), Spec{Timeout: 0})
		if tg.Ready || !strings.Contains(tg.Detail, c.why) {
			t.Errorf("answer %q: %+v; want not ready, %q", c.answer, tg, c.why)
		}
	}
}

// A redirect from an HTTP server on a unix socket stays on that socket
// (its made-up host is the transport's alone), and the GET at the end
// is named as the socket's URL.
func TestWaitUnixSocketRedirect(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "app.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Skipf("no unix socket: %v", err)
	}
	defer l.Close()
	go func() {
		_ = http.Serve(l, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch {
			case r.URL.Path == "/old":
				http.Redirect(w, r, "health?full=1", http.StatusFound)
			case r.URL.Path == "/health" && r.Host == "localhost":
				w.WriteHeader(http.StatusNoContent)
			default:
				w.WriteHeader(http.StatusNotFound)
			}
		}))
	}()
	tg := checkURL(t, "http://unix:"+sock+":/old", Spec{Timeout: 5 * time.Second})
	if want := "GET http://unix:" + sock + ":/health?full=1 answered 204"; !tg.Ready || tg.Detail != want {
		t.Errorf("%+v; want ready, %q", tg, want)
	}
}
