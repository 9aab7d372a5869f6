package engines

import (
	"strings"
	"testing"
)

func TestParseAnswer(t *testing.T) {
	for _, tc := range []struct {
		in     string
		status int
		body   string
		err    string
	}{
		{"HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n\r\n{\"a\":1}", 200, `{"a":1}`, ""},
		{"HTTP/1.1 204 No Content\r\n\r\n", 204, "", ""},
		{"HTTP/1.1 200 OK\r\nApi-Version:  1.41 \r\nContent-Length: 2\r\n\r\nOK", 200, "OK", ""},
		{"HTTP/1.1 404 Not Found\r\nContent-Length: 5\r\n\r\nhello world", 404, "hello", ""},
		{"HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\nshort", 0, "", "ends after 5 of its 50"},
		{"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n", 0, "", "chunked"},
		{"SSH-2.0-OpenSSH\r\n", 0, "", "not an HTTP answer"},
		{"", 0, "", "without an answer"},
		{"HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n", 0, "", "bad Content-Length"},
		{"HTTP/1.1 200 OK\r\nServer: x", 0, "", "headers end early"},
	} {
		a, err := parseAnswer([]byte(tc.in))
		status, body := a.status, a.body
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("parseAnswer(%q) = %d %q %v; want an error saying %q", tc.in, status, body, err, tc.err)
			}
			continue
		}
		if err != nil || status != tc.status || string(body) != tc.body {
			t.Errorf("parseAnswer(%q) = %d %q %v; want %d %q", tc.in, status, body, err, tc.status, tc.body)
		}
	}
}

func TestRequest(t *testing.T) {
	if got := string(request("POST", "/v1.41/containers/x/stop?t=5")); got != "POST /v1.41/containers/x/stop?t=5 HTTP/1.0\r\nHost: docker\r\nUser-Agent: tether\r\nContent-Length: 0\r\n\r\n" {
		t.Errorf("request: %q", got)
	}
	if got := pathEscape("a b/c"); got != "a%20b%2Fc" {
		t.Errorf("pathEscape: %q", got)
	}
}

// An answer, whatever an engine (or whatever listens at its socket)
// sends, is parsed or refused, never a panic, and a body is never more
// than what came.
func FuzzParseAnswer(f *testing.F) {
	f.Add([]byte("HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\n{}"))
	f.Add([]byte("HTTP/1.1 500 Internal Server Error\r\n\r\n{\"message\":\"x\"}"))
	f.Add([]byte("garbage"))
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := parseAnswer(data)
		if err == nil && (a.status < 100 || a.status > 999 || len(a.body) > len(data)) {
			t.Fatalf("parseAnswer(%q) = %d, %d bytes", data, a.status, len(a.body))
		}
	})
}
