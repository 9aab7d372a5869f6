package engines

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// fakeEngine answers the calls of the Docker Engine API this package
// makes, over a unix socket in a directory of the test's own, or fails
// them in the ways an engine can: a peer of tether, like the engine it
// stands for, not the kernel.
type fakeEngine struct {
	path string

	mu         sync.Mutex
	mode       string // how it fails: see serve
	containers []*fakeContainer
	calls      []string
	done       chan struct{}
}

type fakeContainer struct {
	ID, Name, Image string
	Labels          map[string]string
	Pid             int    // its first process; 0 when not running
	IP              string // its address on the bridge
	Ports           []fakePort
	fixture         string // answered for its inspection, as read
}

type fakePort struct {
	IP                      string
	PrivatePort, PublicPort int
	Type                    string
}

// Failure modes: "garbage" answers every call with text that is not
// JSON, "bad-version" gives an ApiVersion that is not one, "hang"
// answers nothing, "hang-stop" nothing to a stop, "500" an Internal
// Server Error to everything but /version, "closed" closes the
// connection without an answer, "stop-lies" answers a stop and leaves
// the container running, "fixtures" answers with testdata/api.
func newFakeEngine(t testing.TB, mode string, containers ...*fakeContainer) *fakeEngine {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("engine sockets are not trusted on windows")
	}
	dir, err := os.MkdirTemp("", "engine-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	e := &fakeEngine{path: filepath.Join(dir, "engine.sock"), mode: mode, containers: containers, done: make(chan struct{})}
	ln, err := net.Listen("unix", e.path)
	if err != nil {
		t.Fatal(err)
	}
	// As an engine makes it, whatever the umask.
	if err := os.Chmod(e.path, 0o660); err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(e.serve)}
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = srv.Serve(ln)
	}()
	t.Cleanup(func() {
		close(e.done)
		srv.Close()
		<-served
	})
	return e
}

func (e *fakeEngine) Calls() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.calls...)
}

func (e *fakeEngine) container(id string) *fakeContainer {
	for _, c := range e.containers {
		if c.ID == id || c.Name == id {
			return c
		}
	}
	return nil
}

func (e *fakeEngine) serve(w http.ResponseWriter, r *http.Request) {
	e.mu.Lock()
	e.calls = append(e.calls, r.Method+" "+r.URL.RequestURI())
	mode := e.mode
	e.mu.Unlock()
	stop := r.Method == "POST" && strings.HasSuffix(r.URL.Path, "/stop")
	switch {
	case mode == "hang" || mode == "hang-stop" && stop:
		select {
		case <-r.Context().Done():
		case <-e.done:
		}
		return
	case mode == "closed":
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
		return
	case mode == "garbage":
		fmt.Fprint(w, "<html>it works!</html>")
		return
	case mode == "500" && r.URL.Path != "/version" && r.URL.Path != "/_ping":
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprint(w, `{"message":"driver failed\nbadly"}`)
		return
	}
	if r.URL.Path == "/_ping" {
		// An engine that gives no Api-Version header ("no-ping-version")
		// is asked GET /version instead.
		switch mode {
		case "bad-version":
			w.Header().Set("Api-Version", "../../x")
		case "no-ping-version":
		default:
			w.Header().Set("Api-Version", "1.41")
		}
		fmt.Fprint(w, "OK")
		return
	}
	if r.URL.Path == "/version" {
		switch mode {
		case "bad-version":
			fmt.Fprint(w, `{"ApiVersion":"../../x"}`)
		case "fixtures":
			http.ServeFile(w, r, "testdata/api/docker-20.10-version.json")
		default:
			fmt.Fprint(w, `{"Version":"20.10.24","ApiVersion":"1.41","MinAPIVersion":"1.12"}`)
		}
		return
	}
	rest, ok := strings.CutPrefix(r.URL.Path, "/v1.41/containers/")
	if !ok {
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `{"message":"page not found"}`)
		return
	}
	if rest == "json" && r.Method == "GET" {
		if mode == "fixtures" {
			http.ServeFile(w, r, "testdata/api/docker-20.10-containers.json")
			return
		}
		e.list(w)
		return
	}
	id, call, _ := strings.Cut(rest, "/")
	e.mu.Lock()
	defer e.mu.Unlock()
	c := e.container(id)
	if c == nil {
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprintf(w, `{"message":"No such container: %s"}`, id)
		return
	}
	switch {
	case call == "json" && r.Method == "GET":
		if c.fixture != "" {
			http.ServeFile(w, r, c.fixture)
			return
		}
		answer := map[string]any{
			"Id": c.ID, "Name": "/" + c.Name,
			"Config": map[string]any{"Image": c.Image, "Labels": c.Labels},
			"State":  map[string]any{"Running": c.Pid != 0, "Pid": c.Pid},
		}
		_ = json.NewEncoder(w).Encode(answer)
	case call == "stop" && r.Method == "POST":
		if c.Pid == 0 {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		if mode != "stop-lies" {
			c.Pid = 0
		}
		w.WriteHeader(http.StatusNoContent)
	default:
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `{"message":"page not found"}`)
	}
}

func (e *fakeEngine) list(w http.ResponseWriter) {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := []map[string]any{}
	for _, c := range e.containers {
		if c.Pid == 0 {
			continue
		}
		out = append(out, map[string]any{
			"Id": c.ID, "Names": []string{"/" + c.Name}, "Image": c.Image, "Labels": c.Labels,
			"State": "running", "Ports": c.Ports,
			"NetworkSettings": map[string]any{"Networks": map[string]any{"bridge": map[string]any{"IPAddress": c.IP}}},
		})
	}
	_ = json.NewEncoder(w).Encode(out)
}
