package readiness

import (
	"strings"
	"testing"
)

func TestParseURL(t *testing.T) {
	for raw, want := range map[string]URL{
		"http://localhost:3000/health?x=1": {Host: "localhost", Port: 3000, Path: "/health?x=1"},
		"http://db":                        {Host: "db", Port: 80, Path: "/"},
		"http://[::1]:8080":                {Host: "::1", Port: 8080, Path: "/"},
		"http://h:81?q":                    {Host: "h", Port: 81, Path: "/?q"},
		"http://unix:/run/app.sock:/ready": {Socket: "/run/app.sock", Path: "/ready"},
		"http://unix:/run/app.sock":        {Socket: "/run/app.sock", Path: "/"},
		"https://localhost:8443/x":         {TLS: true, Host: "localhost", Port: 8443, Path: "/x"},
		"https://example.org":              {TLS: true, Host: "example.org", Port: 443, Path: "/"},
	} {
		got, err := ParseURL(raw)
		if err != nil || got != want {
			t.Errorf("ParseURL(%q) = %+v, %v; want %+v", raw, got, err, want)
		}
	}
	for raw, says := range map[string]string{
		"https://unix:/run/a.sock:/": "https over a unix socket",
		"ftp://x":                    "not an http:// or https:// URL",
		"http://:80/":                "no host",
		"http://h:0/":                `invalid port "0"`,
		"http://h:x/":                `invalid port "x"`,
		"http://a:b:c/":              "more than one ':'",
		"http://u@h/":                "user information",
		"http://unix:run.sock:/":     "not absolute",
		"http://h/a b":               `"/a b"`,
		"http://[::1/":               "no ']'",
	} {
		if _, err := ParseURL(raw); err == nil || !strings.Contains(err.Error(), says) {
			t.Errorf("ParseURL(%q): %v; want an error saying %q", raw, err, says)
		}
	}
}

func TestSplitHostPort(t *testing.T) {
	for _, c := range []struct{ in, host, port, err string }{
		{":3000", "", "3000", ""},
		{"3000", "", "3000", ""},
		{"db:5432", "db", "5432", ""},
		{"[::1]:3000", "::1", "3000", ""},
		{":", "", "", "no port after ':'"},
		{"host:", "", "", "no port after ':'"},
		{"a:b:c", "", "", "more than one ':'"},
		{"[::1]", "", "", "want [IPV6]:PORT"},
		{"[::1]:", "", "", "no port after ':'"},
	} {
		h, p, err := SplitHostPort(c.in, false)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("SplitHostPort(%q) = %q %q %v; want an error saying %q", c.in, h, p, err, c.err)
			}
			continue
		}
		if err != nil || h != c.host || p != c.port {
			t.Errorf("SplitHostPort(%q) = %q %q %v; want %q %q", c.in, h, p, err, c.host, c.port)
		}
	}
}

func TestParseStatuses(t *testing.T) {
	ss, err := ParseStatuses("200-299, 401")
	if err != nil || ss.String() != "200-299,401" || !ss.Has(401) || ss.Has(404) || !ss.Has(204) {
		t.Errorf("ParseStatuses = %v, %v", ss, err)
	}
	if Statuses(nil).String() != "200-299" || Statuses(nil).Has(302) {
		t.Error("nil Statuses are not 2xx")
	}
	for in, says := range map[string]string{
		"299-200": "reversed",
		"99":      "three digits",
		"600":     "600 is not an HTTP status",
		"200,":    "empty item",
		"2xx":     "three digits",
		"200-":    "three digits",
	} {
		if _, err := ParseStatuses(in); err == nil || !strings.Contains(err.Error(), says) {
			t.Errorf("ParseStatuses(%q): %v; want an error saying %q", in, err, says)
		}
	}
}
