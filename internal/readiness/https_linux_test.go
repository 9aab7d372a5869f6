package readiness_test

import (
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tetherproc/tether/internal/readiness"
)

// An https dev server with a self-signed certificate: not ready until
// its certificate is accepted (crypto/tls, in tether itself); its
// redirects followed over https; its status judged as over http.
func TestWaitHTTPS(t *testing.T) {
	var mu sync.Mutex
	up := false
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if !up {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	})
	mux.HandleFunc("/old", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/", http.StatusFound) })
	srv := httptest.NewUnstartedServer(mux)
	// The refused handshake is the test's, not news.
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.StartTLS()
	defer srv.Close()
	u, err := readiness.ParseURL(srv.URL + "/old")
	if err != nil {
		t.Fatal(err)
	}
	spec := readiness.Spec{URLs: []readiness.URL{u}}

	r, err := spec.Wait()
	if err != nil || r.Ready || !strings.Contains(r.Targets[0].Detail, "certificate") {
		t.Fatalf("a self-signed certificate, not accepted: %+v, %v", r, err)
	}
	spec.Insecure = true
	r, err = spec.Wait()
	if err != nil || r.Ready || !strings.Contains(r.Targets[0].Detail, "503") {
		t.Fatalf("a redirect to a 503: %+v, %v", r, err)
	}
	go func() {
		time.Sleep(300 * time.Millisecond)
		mu.Lock()
		up = true
		mu.Unlock()
	}()
	spec.Timeout = 20 * time.Second
	r, err = spec.Wait()
	if err != nil || !r.Ready || r.Targets[0].HTTPStatus != 200 {
		t.Fatalf("the redirect's target answers 200 later: %+v, %v", r, err)
	}
	spec.NoFollow, spec.Accept = true, readiness.Statuses{{302, 302}}
	r, err = spec.Wait()
	if err != nil || !r.Ready || r.Targets[0].HTTPStatus != 302 {
		t.Fatalf("the redirect itself, not followed: %+v, %v", r, err)
	}
}
