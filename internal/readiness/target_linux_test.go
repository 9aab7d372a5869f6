package readiness_test

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tetherproc/tether/internal/readiness"
)

// Every kind of resource at once, as wait-on takes them: all must be
// ready, and each one that is not is named with why.
func TestWaitTargets(t *testing.T) {
	dir := t.TempDir()
	tcp, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer tcp.Close()
	go func() {
		for {
			c, err := tcp.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	sock := filepath.Join(dir, "app.sock")
	ul, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ul.Close()
	go func() {
		_ = http.Serve(ul, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/health" {
				w.WriteHeader(204)
			} else {
				w.WriteHeader(404)
			}
		}))
	}()
	file := filepath.Join(dir, "ready")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	port := uint16(tcp.Addr().(*net.TCPAddr).Port)
	u, err := readiness.ParseURL("http://unix:" + sock + ":/health")
	if err != nil {
		t.Fatal(err)
	}
	spec := readiness.Spec{
		Remote:  []readiness.Remote{{Host: "127.0.0.1", Port: port}},
		URLs:    []readiness.URL{u},
		Sockets: []string{sock},
		Files:   []string{file},
		Timeout: 10 * time.Second,
	}
	r, err := spec.Wait()
	if err != nil || !r.Ready || len(r.Targets) != 4 {
		t.Fatalf("every resource there: %+v, %v", r, err)
	}
	for _, tg := range r.Targets {
		if !tg.Ready || tg.Detail == "" {
			t.Errorf("%+v: want ready, with what was found", tg)
		}
	}
	if r.Targets[1].HTTPStatus != 204 {
		t.Errorf("HTTP over the unix socket: %+v", r.Targets[1])
	}

	// One not there: the wait runs out, and names it, and it alone.
	spec.Files = append(spec.Files, filepath.Join(dir, "never"), dir)
	spec.Timeout = 300 * time.Millisecond
	r, err = spec.Wait()
	if err != nil || r.Ready {
		t.Fatalf("a file never made: %+v, %v", r, err)
	}
	var notReady []string
	for _, tg := range r.Targets {
		if !tg.Ready {
			notReady = append(notReady, tg.Name+": "+tg.Detail)
		}
	}
	if want := []string{filepath.Join(dir, "never") + ": not there", dir + ": a directory, not a file"}; fmt.Sprint(notReady) != fmt.Sprint(want) {
		t.Errorf("not ready: %q; want %q", notReady, want)
	}

	// With Free: the socket that accepts is not free; a file gone and a
	// closed port are.
	tcp.Close()
	r, err = readiness.Spec{Remote: []readiness.Remote{{Host: "127.0.0.1", Port: port}}, Files: []string{filepath.Join(dir, "never")}, Free: true}.Wait()
	if err != nil || !r.Ready {
		t.Errorf("closed port and missing file with Free: %+v, %v", r, err)
	}
	r, err = readiness.Spec{Sockets: []string{sock}, Free: true}.Wait()
	if err != nil || r.Ready || r.Targets[0].Detail != "accepted" {
		t.Errorf("a socket that accepts, with Free: %+v, %v", r, err)
	}
}

// A remote port refused, and a host no one knows, are not ready, and
// say why.
func TestWaitRemoteNotReady(t *testing.T) {
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := uint16(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	r, err := readiness.Spec{Remote: []readiness.Remote{{Host: "127.0.0.1", Port: port}, {Host: "no-such-host.invalid", Port: 80}}}.Wait()
	if err != nil || r.Ready {
		t.Fatalf("%+v, %v", r, err)
	}
	if !strings.Contains(r.Targets[0].Detail, "connection refused") || !strings.Contains(r.Targets[1].Detail, "no such host") {
		t.Errorf("details: %q, %q", r.Targets[0].Detail, r.Targets[1].Detail)
	}
}
