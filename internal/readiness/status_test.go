package readiness

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The fixtures are the first lines that servers (and one that is no
// HTTP server) answer a GET with, as exchange returns them.
func statusFixture(t testing.TB, name string) string {
	b, err := os.ReadFile(filepath.Join("testdata", "status", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestStatusOf(t *testing.T) {
	for _, tt := range []struct {
		file string
		want int // 0: not an HTTP/1 answer
	}{
		{"ok.txt", 200},
		{"no-reason.txt", 204},
		{"unavailable.txt", 503},
		{"http2.txt", 0},
		{"ssh-banner.txt", 0},
		{"short-code.txt", 0},
		{"below-100.txt", 0},
	} {
		got, err := statusOf(statusFixture(t, tt.file))
		if got != tt.want || (err == nil) != (tt.want != 0) {
			t.Errorf("statusOf(%s) = %d, %v; want %d", tt.file, got, err, tt.want)
		}
		if err != nil && !strings.Contains(err.Error(), "not an HTTP/1 answer") {
			t.Errorf("statusOf(%s): error %q does not say what was wrong", tt.file, err)
		}
	}
}

func FuzzStatusOf(f *testing.F) {
	for _, name := range []string{"ok.txt", "ssh-banner.txt"} {
		f.Add(statusFixture(f, name))
	}
	f.Fuzz(func(t *testing.T, line string) {
		n, err := statusOf(line)
		if err == nil && (n < 100 || n > 999 || !strings.HasPrefix(line, "HTTP/1.")) {
			t.Errorf("statusOf(%q) = %d", line, n)
		}
	})
}
