package sockets

import (
	"encoding/binary"
	"net/netip"
	"testing"
)

// The fixtures are inet_diag_msg answers of a sock_diag dump as a
// little-endian Linux (amd64) sent them, each with its attributes: the
// uid and inode are in the machine's byte order, the port and address in
// the network's.
func diagFixture(t testing.TB, name string) []byte { return fixture(t, "diagmsg", name) }

func TestParseDiagMsg(t *testing.T) {
	if binary.NativeEndian.Uint16([]byte{1, 0}) != 1 {
		t.Skip("the fixtures were taken on a little-endian machine")
	}
	for _, tt := range []struct {
		file, proto string
		want        Listener
	}{
		{"tcp4-loopback.bin", "tcp", Listener{Proto: "tcp", Addr: netip.MustParseAddr("127.0.0.1"), Port: 41985, Inode: 191241}},
		{"tcp6-loopback.bin", "tcp", Listener{Proto: "tcp", Addr: netip.IPv6Loopback(), Port: 34937, Inode: 191243}},
		{"udp4-any.bin", "udp", Listener{Proto: "udp", Addr: netip.IPv4Unspecified(), Port: 47482, Inode: 191245}},
		{"udp6-any.bin", "udp", Listener{Proto: "udp", Addr: netip.IPv6Unspecified(), Port: 35737, Inode: 191246}},
	} {
		got, ok := parseDiagMsg(diagFixture(t, tt.file), tt.proto)
		if !ok || got != tt.want {
			t.Errorf("parseDiagMsg(%s) = %+v, %v; want %+v", tt.file, got, ok, tt.want)
		}
	}
	short := diagFixture(t, "tcp4-loopback.bin")[:diagMsgLen-1]
	if l, ok := parseDiagMsg(short, "tcp"); ok {
		t.Errorf("parseDiagMsg of %d bytes = %+v; want none", len(short), l)
	}
	other := append([]byte(nil), diagFixture(t, "tcp4-loopback.bin")...)
	other[0] = 1 // AF_UNIX
	if l, ok := parseDiagMsg(other, "tcp"); ok {
		t.Errorf("parseDiagMsg of an AF_UNIX answer = %+v; want none", l)
	}
}

func FuzzParseDiagMsg(f *testing.F) {
	for _, name := range []string{"tcp4-loopback.bin", "udp6-any.bin"} {
		f.Add(diagFixture(f, name))
	}
	f.Add([]byte{2})
	f.Fuzz(func(t *testing.T, b []byte) {
		l, ok := parseDiagMsg(b, "tcp")
		if ok && (len(b) < diagMsgLen || !l.Addr.IsValid() || l.Addr.Is4In6()) {
			t.Errorf("%+v from %d bytes", l, len(b))
		}
	})
}
