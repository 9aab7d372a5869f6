package readiness_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tetherproc/tether/internal/readiness"
)

var (
	httpsOnce sync.Once
	httpsPath string
	httpsErr  error
)

// httpsProgram builds the helper that sends an https GET, once per test
// binary.
func httpsProgram(t *testing.T) string {
	t.Helper()
	httpsOnce.Do(func() {
		dir, err := os.MkdirTemp("", "tether-https-")
		if err != nil {
			httpsErr = err
			return
		}
		httpsPath = filepath.Join(dir, readiness.HTTPSProgram)
		out, err := exec.Command("go", "build", "-o", httpsPath, "github.com/tetherproc/tether/cmd/tether-https").CombinedOutput()
		if err != nil {
			httpsErr = err
			httpsPath = string(out)
		}
	})
	if httpsErr != nil {
		t.Fatalf("build %s: %v: %s", readiness.HTTPSProgram, httpsErr, httpsPath)
	}
	return httpsPath
}

// An https dev server with a self-signed certificate: not ready until
// its certificate is accepted; its redirects followed over https; its
// status judged as over http.
func TestWaitHTTPS(t *testing.T) {
	prog := httpsProgram(t)
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
	srv := httptest.NewTLSServer(mux)
	defer srv.Close()
	u, err := readiness.ParseURL(srv.URL + "/old")
	if err != nil {
		t.Fatal(err)
	}
	spec := readiness.Spec{URLs: []readiness.URL{u}, HTTPSProgram: prog}

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

	// No program to send it: refused before anything is looked at.
	if err := (readiness.Spec{URLs: []readiness.URL{u}}).Validate(); err == nil || !strings.Contains(err.Error(), readiness.HTTPSProgram) {
		t.Errorf("an https URL with no program: %v", err)
	}
}
