package sockets

import (
	"net/netip"
	"testing"
)

func TestParseLsof(t *testing.T) {
	// lsof -nP -F pcfunt -iTCP -sTCP:LISTEN, as macOS prints it: lsof
	// adds the "f" field itself.
	out := fixture(t, "lsof", "listen-tcp.txt")
	ls := parseLsof(out, "tcp")
	want := map[uint64]Listener{
		lsofKey(412, 5): {Proto: "tcp", Addr: netip.IPv4Unspecified(), Port: 8000, UID: 501, Inode: lsofKey(412, 5)},
		lsofKey(412, 6): {Proto: "tcp", Addr: netip.MustParseAddr("::1"), Port: 8001, UID: 501, Inode: lsofKey(412, 6)},
		lsofKey(412, 9): {Proto: "tcp", Addr: netip.IPv6Unspecified(), Port: 8002, UID: 501, Inode: lsofKey(412, 9)},
		lsofKey(900, 7): {Proto: "tcp", Addr: netip.MustParseAddr("127.0.0.1"), Port: 5000, UID: 0, Inode: lsofKey(900, 7)},
	}
	if len(ls) != len(want) {
		t.Fatalf("parseLsof = %v; want %v", ls, want)
	}
	for k, w := range want {
		if ls[k] != w {
			t.Errorf("parseLsof[%x] = %+v; want %+v", k, ls[k], w)
		}
	}
	if pid, ok := lsofHolder(lsofKey(412, 5)); !ok || pid != 412 {
		t.Errorf("lsofHolder = %d, %v; want 412", pid, ok)
	}
	if _, ok := lsofHolder(0xffffff8012345678 &^ (1 << 63)); ok {
		t.Error("lsofHolder took a kernel socket address for an lsof key")
	}
}

func FuzzParseLsof(f *testing.F) {
	f.Add(fixture(f, "lsof", "listen-tcp.txt"))
	f.Add([]byte("p1\nu0\nf3\nn*:80\n"))
	f.Add([]byte("p1\nf3\nn[fe80::1%en0]:80\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		for k, l := range parseLsof(b, "udp") {
			if pid, ok := lsofHolder(k); !ok || pid <= 0 || l.Port == 0 {
				t.Errorf("listener %+v under key %x", l, k)
			}
		}
	})
}
