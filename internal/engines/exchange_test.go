//go:build unix

package engines

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// engineAt serves h over a unix socket in the test's own directory, as
// an engine serves its API, and dials it.
func engineAt(t *testing.T, h http.HandlerFunc) *client {
	t.Helper()
	path := filepath.Join(t.TempDir(), "e.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o660); err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h}
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = srv.Serve(ln)
	}()
	t.Cleanup(func() {
		srv.Close()
		<-served
	})
	c, err := dial(path, -1)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// The request is the one the engines' own clients send, to the socket
// whatever proxy the environment names, and the answer's status, body
// and Api-Version header are read.
func TestExchangeAnswer(t *testing.T) {
	t.Setenv("HTTP_PROXY", "http://127.0.0.1:9")
	t.Setenv("http_proxy", "http://127.0.0.1:9")
	got := make(chan string, 1)
	c := engineAt(t, func(w http.ResponseWriter, r *http.Request) {
		got <- fmt.Sprintf("%s %s %s host=%s ua=%s", r.Method, r.RequestURI, r.Proto, r.Host, r.UserAgent())
		w.Header().Set("Api-Version", " 1.45 ")
		fmt.Fprint(w, "OK")
	})
	a, err := c.call("GET", "/_ping", "", callLimit)
	if err != nil || a.status != 200 || string(a.body) != "OK" || a.api != "1.45" {
		t.Fatalf("call = %d %q api %q, %v; want 200 \"OK\" api 1.45", a.status, a.body, a.api, err)
	}
	if got, want := <-got, "GET /_ping HTTP/1.1 host=docker ua=tether"; got != want {
		t.Errorf("request %q, want %q", got, want)
	}
}

// A stop is a POST with its grace in the query, and an id is one path
// segment whatever it holds.
func TestExchangeStop(t *testing.T) {
	got := make(chan string, 1)
	c := engineAt(t, func(w http.ResponseWriter, r *http.Request) {
		got <- r.Method + " " + r.RequestURI + " " + r.Header.Get("Content-Length")
		w.WriteHeader(http.StatusNoContent)
	})
	c.api = "1.41"
	if err := c.stop("a b/c", 3); err != nil {
		t.Fatalf("stop: %v", err)
	}
	if got, want := <-got, "POST /v1.41/containers/a%20b%2Fc/stop?t=3 0"; got != want {
		t.Errorf("request %q, want %q", got, want)
	}
}

// A chunked answer, which an engine may give an HTTP/1.1 request, is
// read whole.
func TestExchangeChunked(t *testing.T) {
	c := engineAt(t, func(w http.ResponseWriter, r *http.Request) {
		if !r.ProtoAtLeast(1, 1) {
			t.Errorf("an HTTP/%d.%d request: no chunked answer to it", r.ProtoMajor, r.ProtoMinor)
		}
		fmt.Fprint(w, `[{"Id":"`+idA+`",`)
		w.(http.Flusher).Flush() // no length yet: the rest is chunked
		fmt.Fprint(w, `"Names":["/tb1"]}]`)
	})
	c.api = "1.41"
	list, err := c.list()
	if err != nil || len(list) != 1 || list[0].ID != idA || len(list[0].Names) != 1 || list[0].Names[0] != "/tb1" {
		t.Fatalf("list = %+v, %v", list, err)
	}
}

// A 404 of a container is ErrGone; of anything else, the engine's
// refusal with its message.
func TestExchangeNotFound(t *testing.T) {
	c := engineAt(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `{"message":"page not found"}`)
	})
	c.api = "1.41"
	_, err := c.inspect("nope")
	var ee *Error
	if !errors.Is(err, ErrGone) || !errors.As(err, &ee) || ee.Op != "GET /containers/nope/json" {
		t.Errorf("inspect = %v, want ErrGone in an *Error naming GET /containers/nope/json", err)
	}
	if _, err := c.list(); err == nil || !strings.Contains(err.Error(), "GET /containers/json: 404 Not Found: page not found") {
		t.Errorf("list = %v, want the engine's 404 and its message", err)
	}
}

// An answer longer than maxAnswer is refused, whether its length is said
// first or found by reading.
func TestExchangeTooLong(t *testing.T) {
	for _, chunked := range []bool{false, true} {
		c := engineAt(t, func(w http.ResponseWriter, r *http.Request) {
			if chunked {
				w.(http.Flusher).Flush()
			} else {
				w.Header().Set("Content-Length", strconv.Itoa(maxAnswer+1))
			}
			_, _ = w.Write(make([]byte, maxAnswer+1))
		})
		_, err := c.call("GET", "/containers/json", "", callLimit)
		var ee *Error
		if !errors.As(err, &ee) || ee.Op != "GET /containers/json" || !strings.Contains(err.Error(), "an answer longer than 16777216 bytes") {
			t.Errorf("chunked %v: call = %v, want an *Error saying the answer is too long", chunked, err)
		}
	}
}

// An engine that does not answer, or stops halfway, is given up at the
// call's limit, and the error names the call.
func TestExchangeDeadline(t *testing.T) {
	for _, headers := range []bool{false, true} {
		t.Run(fmt.Sprintf("headers=%v", headers), func(t *testing.T) {
			t.Parallel()
			c := engineAt(t, func(w http.ResponseWriter, r *http.Request) {
				if headers {
					fmt.Fprint(w, "{")
					w.(http.Flusher).Flush()
				}
				<-r.Context().Done()
			})
			const limit = 1500 * time.Millisecond
			start := time.Now()
			_, err := c.call("GET", "/_ping", "", limit)
			took := time.Since(start)
			var ee *Error
			if !errors.As(err, &ee) || ee.Op != "GET /_ping" || !errors.Is(err, context.DeadlineExceeded) ||
				!strings.Contains(err.Error(), "GET /_ping: no answer within 1.5s") {
				t.Errorf("call = %v, want an *Error naming GET /_ping, saying no answer within 1.5s", err)
			}
			if took < limit || took > limit+2*time.Second {
				t.Errorf("call took %v, want about %v", took, limit)
			}
		})
	}
}
