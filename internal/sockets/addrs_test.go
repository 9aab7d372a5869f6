package sockets

import (
	"net/netip"
	"slices"
	"testing"
)

func TestParseFibTrie(t *testing.T) {
	tests := map[string][]string{
		"fib_trie-host":      {"127.0.0.1", "192.0.2.2"},
		"fib_trie-container": {"127.0.0.1", "172.17.0.2"},
	}
	for name, want := range tests {
		var got []string
		for _, a := range ParseFibTrie(fixture(t, "addrs", name)) {
			got = append(got, a.String())
		}
		if !slices.Equal(got, want) {
			t.Errorf("ParseFibTrie(%s) = %q, want %q", name, got, want)
		}
	}
	if got := ParseFibTrie([]byte("|-- 10.0.0.1\n/24 link UNICAST\n/32 host LOCAL\n|-- nonsense\n/32 host LOCAL\n")); len(got) != 0 {
		t.Errorf("ParseFibTrie of leaves that are not local = %v", got)
	}
}

func TestParseIfInet6(t *testing.T) {
	got := ParseIfInet6(fixture(t, "addrs", "if_inet6-host"))
	for _, want := range []string{"::1", "fd00::2"} {
		if !slices.Contains(got, netip.MustParseAddr(want)) {
			t.Errorf("ParseIfInet6 = %v, want %s among them", got, want)
		}
	}
	if got := ParseIfInet6([]byte("zz000000000000000000000000000001 01 80 10 80 lo\nshort\n")); len(got) != 0 {
		t.Errorf("ParseIfInet6 of garbage = %v", got)
	}
}

func FuzzParseFibTrie(f *testing.F) {
	for _, data := range fixtures(f, "addrs") {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, a := range ParseFibTrie(data) {
			if !a.Is4() {
				t.Fatalf("%v is not IPv4", a)
			}
		}
		for _, a := range ParseIfInet6(data) {
			if !a.Is6() {
				t.Fatalf("%v is not IPv6", a)
			}
		}
	})
}
