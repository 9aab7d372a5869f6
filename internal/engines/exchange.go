package engines

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// An engine's API is asked with HTTP/1.0 over its unix socket, written
// and read here rather than with net/http: package net would link the
// cgo resolver into tether's binary (a dynamic executable, whose threads
// glibc makes with clone3: one that a container's seccomp profile refuses
// with EPERM cannot start at all) and crypto/tls with it, for a few
// requests to a local socket. HTTP/1.0 has the engine close the
// connection after its answer, which delimits the body, so that no
// chunked encoding is needed (Go's server, which Docker and Podman use,
// never chunks an answer to a 1.0 request).

// request is the request line and headers of one call.
func request(method, target string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s %s HTTP/1.0\r\nHost: docker\r\nUser-Agent: tether\r\n", method, target)
	if method == "POST" {
		b.WriteString("Content-Length: 0\r\n")
	}
	b.WriteString("\r\n")
	return b.Bytes()
}

// answer is what is read of an engine's answer: its status, its body,
// and its API version when a header gives it (Api-Version, which Docker
// and Podman send with every answer, /_ping's included).
type answer struct {
	status int
	body   []byte
	api    string
}

// parseAnswer reads an HTTP answer whole: its status, its API version
// header and its body (by Content-Length when given, else to the end).
func parseAnswer(data []byte) (answer, error) {
	if len(data) == 0 {
		return answer{}, fmt.Errorf("the connection closed without an answer: %w", io.EOF)
	}
	r := bufio.NewReader(bytes.NewReader(data))
	line, err := r.ReadString('\n')
	if err != nil {
		return answer{}, fmt.Errorf("no status line in %d bytes", len(data))
	}
	proto, rest, _ := strings.Cut(strings.TrimRight(line, "\r\n"), " ")
	code, _, _ := strings.Cut(rest, " ")
	status, err := strconv.Atoi(code)
	if !strings.HasPrefix(proto, "HTTP/1.") || err != nil || status < 100 || status > 999 {
		return answer{}, fmt.Errorf("not an HTTP answer: %q", clipString(line))
	}
	length, chunked, api := -1, false, ""
	for {
		h, err := r.ReadString('\n')
		if err != nil {
			return answer{}, errors.New("the answer's headers end early")
		}
		h = strings.TrimRight(h, "\r\n")
		if h == "" {
			break
		}
		k, v, _ := strings.Cut(h, ":")
		switch strings.ToLower(strings.TrimSpace(k)) {
		case "content-length":
			if length, err = strconv.Atoi(strings.TrimSpace(v)); err != nil || length < 0 {
				return answer{}, fmt.Errorf("bad Content-Length %q", clipString(v))
			}
		case "api-version":
			api = strings.TrimSpace(v)
		case "transfer-encoding":
			chunked = !strings.EqualFold(strings.TrimSpace(v), "identity")
		}
	}
	if chunked {
		return answer{}, errors.New("a chunked answer to an HTTP/1.0 request")
	}
	body, _ := io.ReadAll(r)
	if length >= 0 {
		if len(body) < length {
			return answer{}, fmt.Errorf("the answer ends after %d of its %d bytes", len(body), length)
		}
		body = body[:length]
	}
	return answer{status: status, body: body, api: api}, nil
}

// pathEscape escapes a path segment: an id or a name, which the engine's
// answers give in [A-Za-z0-9_.-] anyway.
func pathEscape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// statusText names the statuses an engine's API answers with.
var statusText = map[int]string{
	200: "OK", 204: "No Content", 304: "Not Modified", 400: "Bad Request",
	401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 409: "Conflict",
	500: "Internal Server Error", 503: "Service Unavailable",
}
