package readiness

import (
	"fmt"
	"strconv"
	"strings"
)

// URL is an http or https URL a wait sends a GET to: a host and port,
// or a unix socket that speaks HTTP ("http://unix:/run/app.sock:/health",
// as wait-on writes it), and the path with its query.
type URL struct {
	// TLS is an https URL: its GET is sent over crypto/tls.
	TLS bool
	// Host is the host as written (a name, an IPv4 address, an IPv6
	// address without its brackets); "" with Socket.
	Host string
	// Port is the port, 80 (443 with TLS) when none is written.
	Port uint16
	// Socket is the unix socket's path, for an HTTP server on one.
	Socket string
	// Path is the path and query: "/" when none is written.
	Path string
}

// ParseURL parses an http or https URL: http[s]://HOST[:PORT][/PATH],
// HOST an IPv6 address in brackets, or http://unix:SOCKET:/PATH. The
// error names the URL and what is wrong with it.
func ParseURL(raw string) (URL, error) {
	rest, ok := strings.CutPrefix(raw, "http://")
	tls := false
	if !ok {
		if rest, ok = strings.CutPrefix(raw, "https://"); !ok {
			return URL{}, fmt.Errorf("invalid URL %q: not an http:// or https:// URL", raw)
		}
		tls = true
	}
	if sock, ok := strings.CutPrefix(rest, "unix:"); ok {
		if tls {
			return URL{}, fmt.Errorf("invalid URL %q: https over a unix socket is not supported (http://unix:SOCKET:/PATH is)", raw)
		}
		path, req, found := strings.Cut(sock, ":")
		if !found {
			req = "/"
		}
		if !strings.HasPrefix(path, "/") {
			return URL{}, fmt.Errorf("invalid URL %q: the socket path %q is not absolute (http://unix:/run/app.sock:/health)", raw, path)
		}
		if err := checkPath(req); err != nil {
			return URL{}, fmt.Errorf("invalid URL %q: %w", raw, err)
		}
		return URL{Socket: path, Path: req}, nil
	}
	hostport, path := rest, "/"
	if i := strings.IndexAny(rest, "/?"); i >= 0 {
		hostport, path = rest[:i], rest[i:]
		if path[0] == '?' {
			path = "/" + path
		}
	}
	if strings.Contains(hostport, "@") {
		return URL{}, fmt.Errorf("invalid URL %q: user information is not sent", raw)
	}
	host, port, err := SplitHostPort(hostport, true)
	if err != nil {
		return URL{}, fmt.Errorf("invalid URL %q: %w", raw, err)
	}
	if host == "" {
		return URL{}, fmt.Errorf("invalid URL %q: no host", raw)
	}
	u := URL{TLS: tls, Host: host, Port: 80, Path: path}
	if tls {
		u.Port = 443
	}
	if port != "" {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 {
			return URL{}, fmt.Errorf("invalid URL %q: invalid port %q: must be 1-65535", raw, port)
		}
		u.Port = uint16(n)
	}
	if err := checkPath(u.Path); err != nil {
		return URL{}, fmt.Errorf("invalid URL %q: %w", raw, err)
	}
	return u, nil
}

// SplitHostPort splits HOST:PORT, [IPV6]:PORT or :PORT into its host
// (without brackets; "" for none) and port text. With optional, a host
// alone (no colon) is a host with no port; without it, text with no
// colon is a port alone.
func SplitHostPort(s string, optional bool) (host, port string, err error) {
	if strings.HasPrefix(s, "[") {
		end := strings.Index(s, "]")
		if end < 0 {
			return "", "", fmt.Errorf("invalid address %q: no ']' after the IPv6 address", s)
		}
		host, rest := s[1:end], s[end+1:]
		switch {
		case rest == "" && optional:
			return host, "", nil
		case !strings.HasPrefix(rest, ":"):
			return "", "", fmt.Errorf("invalid address %q: want [IPV6]:PORT", s)
		case rest == ":":
			return "", "", fmt.Errorf("invalid address %q: no port after ':'", s)
		}
		return host, rest[1:], nil
	}
	switch strings.Count(s, ":") {
	case 0:
		if optional {
			return s, "", nil
		}
		return "", s, nil
	case 1:
		host, port, _ = strings.Cut(s, ":")
		if port == "" {
			return "", "", fmt.Errorf("invalid address %q: no port after ':'", s)
		}
		return host, port, nil
	}
	return "", "", fmt.Errorf("invalid address %q: more than one ':' (write an IPv6 address in brackets: [::1]:3000)", s)
}

// String is the URL as written.
func (u URL) String() string {
	if u.Socket != "" {
		return "http://unix:" + u.Socket + ":" + u.Path
	}
	if u.TLS {
		return "https://" + hostPort(u.Host, u.Port) + u.Path
	}
	return "http://" + hostPort(u.Host, u.Port) + u.Path
}

// hostPort writes host and port as a URL does: an IPv6 address in
// brackets.
func hostPort(host string, port uint16) string {
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	return host + ":" + strconv.Itoa(int(port))
}
