package hosts

import (
	"errors"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

func TestResolveLiteralsAndLocalhost(t *testing.T) {
	for host, want := range map[string][]string{
		"127.0.0.1":       {"127.0.0.1"},
		"::1":             {"::1"},
		"localhost":       {"127.0.0.1", "::1"},
		"LocalHost.":      {"127.0.0.1", "::1"},
		"::ffff:10.1.2.3": {"10.1.2.3"},
	} {
		got, err := Resolve(host, time.Second)
		if err != nil || !slices.Equal(texts(got), want) {
			t.Errorf("Resolve(%q) = %v, %v; want %v", host, got, err, want)
		}
	}
	for _, bad := range []string{"", "a b", "-x..y", "host:80", "[::1]"} {
		if got, err := Resolve(bad, time.Second); err == nil {
			t.Errorf("Resolve(%q) = %v; want an error", bad, got)
		}
	}
}

func TestHostsFile(t *testing.T) {
	data, err := os.ReadFile("testdata/hosts")
	if err != nil {
		t.Fatal(err)
	}
	if got := texts(parseHosts(data, "db")); !slices.Equal(got, []string{"172.18.0.2", "fd00::2"}) {
		t.Errorf("db: %v", got)
	}
	if got := parseHosts(data, "commented"); len(got) != 0 {
		t.Errorf("a name after # is a comment: %v", got)
	}
}

func TestResolvConf(t *testing.T) {
	data, err := os.ReadFile("testdata/resolv.conf")
	if err != nil {
		t.Fatal(err)
	}
	r := parseResolvConf(data)
	if r.ndots != 2 || len(r.servers) != 2 || r.servers[0].String() != "127.0.0.11:53" || !slices.Equal(r.search, []string{"ci.example", "example"}) {
		t.Fatalf("parsed %+v", r)
	}
	if got := r.names("db"); !slices.Equal(got, []string{"db.ci.example", "db.example", "db"}) {
		t.Errorf("names(db) = %v", got)
	}
	if got := r.names("a.b.c"); got[0] != "a.b.c" {
		t.Errorf("names(a.b.c) = %v", got)
	}
}

// A real answer, as a resolver sends it, read for its addresses; every
// fault of one refused, never a panic.
func TestParseAnswer(t *testing.T) {
	q, id, err := query("db.example", typeA)
	if err != nil {
		t.Fatal(err)
	}
	ans := append([]byte{}, q...)
	ans[2] |= 0x80
	ans[7] = 1 // one answer
	ans = append(ans, 0xc0, 12, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 10, 0, 0, 7)
	got, err := parseAnswer(ans, id, typeA)
	if err != nil || !slices.Equal(texts(got), []string{"10.0.0.7"}) {
		t.Errorf("parseAnswer = %v, %v", got, err)
	}
	nx := append([]byte{}, q...)
	nx[2] |= 0x80
	nx[3] = 3
	if _, err := parseAnswer(nx, id, typeA); !errors.Is(err, ErrNotFound) {
		t.Errorf("NXDOMAIN: %v", err)
	}
	if _, err := parseAnswer(ans, id+1, typeA); err == nil {
		t.Error("an answer to another question taken")
	}
	for n := range len(ans) {
		_, _ = parseAnswer(ans[:n], id, typeA)
	}
}

func FuzzParseAnswer(f *testing.F) {
	q, id, _ := query("x.example", typeAAAA)
	f.Add(q)
	f.Fuzz(func(t *testing.T, m []byte) {
		as, err := parseAnswer(m, id, typeAAAA)
		if err == nil && len(as) == 0 {
			t.Fatal("no error and no address")
		}
	})
}

// A DNS server of the test's own, on the loopback: Resolve asks it
// and reads its answer.
func TestResolveThroughDNS(t *testing.T) {
	dir := t.TempDir()
	old, oldHosts := resolvConf, hostsFile
	t.Cleanup(func() { resolvConf, hostsFile = old, oldHosts })
	hostsFile = filepath.Join(dir, "none")
	srv := startDNS(t, netip.MustParseAddr("10.9.8.7"))
	resolvConf = filepath.Join(dir, "resolv.conf")
	if err := os.WriteFile(resolvConf, []byte("nameserver 127.0.0.1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	exchangePort = srv
	t.Cleanup(func() { exchangePort = 53 })
	got, err := Resolve("svc.test", 2*time.Second)
	if err != nil || !slices.Equal(texts(got), []string{"10.9.8.7"}) {
		t.Errorf("Resolve through DNS = %v, %v", got, err)
	}
	if _, err := Resolve("missing.test", 2*time.Second); !errors.Is(err, ErrNotFound) {
		t.Errorf("a name the server does not know: %v", err)
	}
}

func TestLocal(t *testing.T) {
	for _, s := range []string{"127.0.0.1", "::1", "0.0.0.0", "::", "127.3.4.5"} {
		if !Local(netip.MustParseAddr(s)) {
			t.Errorf("Local(%s) = false", s)
		}
	}
	for _, s := range []string{"192.0.2.1", "2001:db8::1"} {
		if Local(netip.MustParseAddr(s)) {
			t.Errorf("Local(%s) = true (a documentation address)", s)
		}
	}
}

func texts(as []netip.Addr) []string {
	var out []string
	for _, a := range as {
		out = append(out, a.String())
	}
	return out
}
