package sockets

import (
	"encoding/binary"
	"net/netip"
	"os"
	"path/filepath"
	"testing"
)

// socketFDInfo builds a struct socket_fdinfo (792 bytes) as XNU lays it
// out on darwin/amd64 and darwin/arm64 (bsd/sys/proc_info.h of
// apple-oss-distributions/xnu xnu-11417.101.15; offsets from the start
// of socket_fdinfo: pfi 0..23, psi from 24; soi_so
// 160, soi_type 176, soi_family 184, soi_kind 256, soi_proto 264:
// in_sockinfo insi_fport 264, insi_lport 268, insi_vflag 288, insi_faddr
// 296..311, insi_laddr 312..327; tcp_sockinfo tcpsi_state 344).
type socketSpec struct {
	id                uint64
	kind, family, typ int32
	lport, fport      uint16
	vflag             byte
	laddr             netip.Addr
	tcpState          int32
}

func socketFDInfo(s socketSpec) []byte {
	b := make([]byte, 792)
	le := binary.LittleEndian
	le.PutUint64(b[160:], s.id)
	le.PutUint32(b[176:], uint32(s.typ))
	le.PutUint32(b[184:], uint32(s.family))
	le.PutUint32(b[256:], uint32(s.kind))
	// Network-order ports in the low addresses of the ints, as the
	// kernel's plain assignment of an in_port_t leaves them.
	binary.BigEndian.PutUint16(b[264:], s.fport)
	binary.BigEndian.PutUint16(b[268:], s.lport)
	b[288] = s.vflag
	if s.laddr.Is4() {
		a := s.laddr.As4()
		copy(b[312+12:], a[:])
	} else if s.laddr.IsValid() {
		a := s.laddr.As16()
		copy(b[312:], a[:])
	}
	le.PutUint32(b[344:], uint32(s.tcpState))
	return b
}

// The fixtures are struct socket_fdinfo answers laid out as socketFDInfo
// lays them (XNU's offsets), one socket each.
func TestParseSocketInfo(t *testing.T) {
	tests := []struct {
		file     string
		listener bool
		want     Listener
	}{
		{"tcp4-listening.bin", true, Listener{Proto: "tcp", Addr: netip.MustParseAddr("127.0.0.1"), Port: 8080, Inode: 0x7fffff8012345678}},
		{"tcp6-listening-loopback.bin", true, Listener{Proto: "tcp", Addr: netip.MustParseAddr("::1"), Port: 8443, Inode: 7}},
		{"tcp-dual-stack.bin", true, Listener{Proto: "tcp", Addr: netip.IPv6Unspecified(), Port: 3000, Inode: 8}},
		{"tcp6-socket-v4-mapped.bin", true, Listener{Proto: "tcp", Addr: netip.MustParseAddr("10.0.0.1"), Port: 3001, Inode: 9}},
		{"tcp-established.bin", false, Listener{Proto: "tcp", Addr: netip.MustParseAddr("127.0.0.1"), Port: 8080, Inode: 10}},
		{"udp-bound.bin", true, Listener{Proto: "udp", Addr: netip.IPv4Unspecified(), Port: 5353, Inode: 11}},
		{"udp-connected.bin", false, Listener{Proto: "udp", Addr: netip.MustParseAddr("192.168.1.2"), Port: 5353, Inode: 12}},
		{"unix-socket.bin", false, Listener{}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			s, err := parseSocketInfo(fixture(t, "socketinfo", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if s.listener != tt.listener || s.Listener != tt.want {
				t.Errorf("parseSocketInfo = listener %v %+v; want %v %+v", s.listener, s.Listener, tt.listener, tt.want)
			}
		})
	}
	if _, err := parseSocketInfo(make([]byte, 791)); err == nil {
		t.Error("parseSocketInfo of 791 bytes: no error")
	}
}

// fixture is testdata/DIR/NAME.
func fixture(t testing.TB, dir, name string) []byte {
	b, err := os.ReadFile(filepath.Join("testdata", dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// fixtures is every file of testdata/DIR, by name: the seeds of a fuzz
// target.
func fixtures(t testing.TB, dir string) map[string][]byte {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", dir, "*"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixtures in testdata/%s: %v", dir, err)
	}
	out := map[string][]byte{}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(p)] = data
	}
	return out
}

func FuzzParseSocketInfo(f *testing.F) {
	f.Add(socketFDInfo(socketSpec{kind: 2, family: 2, typ: 1, lport: 80, vflag: 1, tcpState: 1}))
	f.Add(socketFDInfo(socketSpec{kind: 1, family: 30, typ: 2, lport: 53, vflag: 3}))
	f.Add([]byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := parseSocketInfo(b)
		if err != nil {
			return
		}
		if s.listener && (s.Port == 0 || (s.Proto != "tcp" && s.Proto != "udp") || !s.Addr.IsValid()) {
			t.Errorf("listener %+v from %d bytes: no port, protocol or address", s, len(b))
		}
	})
}
