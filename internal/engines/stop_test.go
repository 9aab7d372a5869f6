package engines

import (
	"context"
	"errors"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

func running(id, name string) *fakeContainer {
	return &fakeContainer{ID: id, Name: name, Image: "bb:1", Pid: 4242, IP: "172.17.0.2"}
}

func TestStop(t *testing.T) {
	e := newFakeEngine(t, "", running(idA, "tb1"))
	m := &Manager{Kind: Container, Engine: Docker, ID: idA, Name: "tb1", Socket: e.path}
	if err := Stop(m, 2100*time.Millisecond); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	want := []string{
		"GET /_ping", // its Api-Version header
		"POST /v1.41/containers/" + idA + "/stop?t=3", // 2.1s rounded up
		"GET /v1.41/containers/" + idA + "/json",      // it says it stopped
	}
	if got := e.Calls(); !slices.Equal(got, want) {
		t.Errorf("calls:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Stopped already: 304, which is what was asked for.
	if err := Stop(m, time.Second); err != nil {
		t.Errorf("Stop of a stopped container: %v", err)
	}
	// Removed between the lookup and the stop.
	gone := &Manager{Kind: Container, Engine: Docker, ID: idB, Socket: e.path}
	if err := Stop(gone, time.Second); err != ErrGone {
		t.Errorf("Stop of a container the engine does not know: %v, want ErrGone", err)
	}
}

func TestStopUsesKnownVersion(t *testing.T) {
	e := newFakeEngine(t, "", running(idA, "tb1"))
	m := &Manager{Kind: Container, Engine: Docker, ID: idA, Socket: e.path, api: "1.41"}
	if err := Stop(m, 0); err != nil {
		t.Fatal(err)
	}
	if got := e.Calls(); len(got) == 0 || got[0] != "POST /v1.41/containers/"+idA+"/stop?t=0" {
		t.Errorf("calls %q: want the stop first, with t=0", got)
	}
}

func TestGraceSeconds(t *testing.T) {
	for grace, want := range map[time.Duration]int{
		-time.Second: 0, 0: 0, time.Nanosecond: 1, time.Second: 1,
		time.Second + time.Millisecond: 2, 10 * time.Second: 10, 1 << 62: 1<<31 - 1,
	} {
		if got := graceSeconds(grace); got != want {
			t.Errorf("graceSeconds(%v) = %d, want %d", grace, got, want)
		}
	}
}

// Each way an engine can fail is one *Error naming the socket and the
// call, and nothing else happens: no stop is sent after a failed
// /version, none twice.
func TestStopFaults(t *testing.T) {
	t.Parallel() // hanging engines are waited out
	stopOp := "POST /containers/" + idA + "/stop"
	tests := []struct {
		mode    string
		grace   time.Duration
		op      string
		says    string
		maxTime time.Duration
	}{
		{"garbage", time.Second, "GET /version", "not the API's answer", 0},
		{"bad-version", time.Second, "GET /version", `ApiVersion "../../x" is not an API version`, 0},
		{"500", time.Second, stopOp, "500 Internal Server Error: driver failed badly", 0},
		{"closed", time.Second, "GET /_ping", "EOF", 0},
		{"stop-lies", time.Second, stopOp, "still runs", 0},
		// No answer: a call's limit, five seconds...
		{"hang", 10 * time.Second, "GET /_ping", "no answer within 5s", 7 * time.Second},
		// ...and for the stop, the grace and five seconds.
		{"hang-stop", time.Second, stopOp, "no answer within 6s", 8 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			t.Parallel()
			e := newFakeEngine(t, tt.mode, running(idA, "tb1"))
			m := &Manager{Kind: Container, Engine: Docker, ID: idA, Socket: e.path}
			start := time.Now()
			err := Stop(m, tt.grace)
			took := time.Since(start)
			var ee *Error
			if !errors.As(err, &ee) {
				t.Fatalf("Stop = %v, want an *Error", err)
			}
			if ee.Socket != e.path || ee.Op != tt.op || !strings.Contains(err.Error(), tt.says) {
				t.Errorf("Stop = %q (socket %q, op %q); want socket %s, op %q, saying %q", err, ee.Socket, ee.Op, e.path, tt.op, tt.says)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error on more than one line: %q", err)
			}
			if tt.maxTime > 0 {
				if took > tt.maxTime {
					t.Errorf("Stop took %v, want at most %v", took, tt.maxTime)
				}
				if !errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("%v: not a deadline", err)
				}
			}
			stops := 0
			for _, c := range e.Calls() {
				if strings.HasPrefix(c, "POST") {
					stops++
				}
			}
			if want := map[bool]int{true: 1, false: 0}[tt.op == stopOp]; stops != want {
				t.Errorf("%d stops sent (%q), want %d", stops, e.Calls(), want)
			}
		})
	}
}

func TestStopWithout(t *testing.T) {
	why := errors.New("DOCKER_HOST \"tcp://h:2375\": only local unix sockets (unix:///path) are asked")
	tests := []struct {
		name string
		m    *Manager
		says string
	}{
		{"nil", nil, "not a container"},
		{"unit", &Manager{Kind: Unit, Name: "nginx.service"}, "not a container"},
		{"no id", &Manager{Kind: Container, Engine: Docker, Socket: "/nonexistent.sock"}, "id is not known"},
		{"no socket", &Manager{Kind: Container, Engine: Docker, ID: idA, Unreachable: why}, "tcp://h:2375"},
		{"no socket, no reason", &Manager{Kind: Container, Engine: Docker, ID: idA}, "no engine socket"},
		{"missing socket", &Manager{Kind: Container, Engine: Docker, ID: idA, Socket: "/nonexistent/docker.sock"}, "no such file"},
	}
	for _, tt := range tests {
		if tt.name == "missing socket" && runtime.GOOS == "windows" {
			continue // no socket is checked there: refused before it is looked for
		}
		err := Stop(tt.m, time.Second)
		var ee *Error
		if !errors.As(err, &ee) || !strings.Contains(err.Error(), tt.says) {
			t.Errorf("%s: Stop = %v, want an *Error saying %q", tt.name, err, tt.says)
		}
	}
}

// A socket that is not root's (or this user's) is not asked at all.
func TestStopUntrustedSocket(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root, to give the socket away")
	}
	e := newFakeEngine(t, "", running(idA, "tb1"))
	if err := os.Chown(e.path, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	err := Stop(&Manager{Kind: Container, Engine: Docker, ID: idA, Socket: e.path}, time.Second)
	if !errors.Is(err, ErrUntrusted) || !strings.Contains(err.Error(), "owned by uid 65534") || !strings.Contains(err.Error(), "srw-rw----") {
		t.Errorf("Stop through another user's socket = %v, want ErrUntrusted naming the owner and the mode", err)
	}
	if calls := e.Calls(); len(calls) != 0 {
		t.Errorf("calls made through an untrusted socket: %q", calls)
	}
}

// The API's own answers, as Docker 20.10 gave them, read as this package
// reads them.
func TestFixtureAnswers(t *testing.T) {
	const id = "25ca90ac4453fcba261811d9aefe2f5dc49a653cc0fc6cd1d3008360d6c349ab"
	e := newFakeEngine(t, "fixtures", &fakeContainer{ID: id, Name: "tb1", fixture: "testdata/api/docker-20.10-inspect.json"})
	c, err := dial(e.path, -1)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.version(); err != nil || c.api != "1.41" {
		t.Fatalf("version: %q, %v", c.api, err)
	}
	// An engine whose /_ping gives no Api-Version header is asked
	// GET /version.
	old := newFakeEngine(t, "no-ping-version")
	oc, err := dial(old.path, -1)
	if err != nil {
		t.Fatal(err)
	}
	if err := oc.version(); err != nil || oc.api != "1.41" || !slices.Equal(old.Calls(), []string{"GET /_ping", "GET /version"}) {
		t.Fatalf("version without the header: %q, %v, calls %q", oc.api, err, old.Calls())
	}
	list, err := c.list()
	if err != nil || len(list) != 1 {
		t.Fatalf("list: %+v, %v", list, err)
	}
	got := list[0]
	if got.ID != id || !slices.Equal(got.Names, []string{"/tb1"}) || got.Image != "bb:1" || len(got.Ports) != 1 ||
		got.Ports[0].IP != "127.0.0.1" || got.Ports[0].PublicPort != 18080 || got.Ports[0].PrivatePort != 80 || got.Ports[0].Type != "tcp" ||
		got.NetworkSettings.Networks["bridge"].IPAddress != "172.17.0.2" {
		t.Errorf("list: %+v", got)
	}
	p := &Proxy{Program: DockerProxy, Engine: Docker, Proto: "tcp", HostIP: "127.0.0.1", HostPort: 18080, ContainerIP: "172.17.0.2", ContainerPort: 80}
	if found, err := matchDockerProxy(list, p); err != nil || found.ID != id {
		t.Errorf("matchDockerProxy: %s, %v", found.ID, err)
	}
	info, err := c.inspect(id)
	if err != nil || info.ID != id || info.Name != "/tb1" || info.Config.Image != "bb:1" || !info.State.Running || info.State.Pid != 3152 {
		t.Errorf("inspect: %+v, %v", info, err)
	}
}
