package peers

import (
	"encoding/binary"
	"testing"
)

// diagMsg lays out a unix_diag_msg with a peer and a shutdown attribute,
// as the kernel writes them (each attribute padded to 4 bytes).
func diagMsg(ino, peer uint32, shutdown uint8) []byte {
	ne := binary.NativeEndian
	m := make([]byte, unixDiagMsgLen, unixDiagMsgLen+16)
	m[0], m[1], m[2] = 1, 1, 1 // AF_UNIX, SOCK_STREAM, established
	ne.PutUint32(m[4:], ino)
	attr := make([]byte, 8)
	ne.PutUint16(attr[0:], 8)
	ne.PutUint16(attr[2:], unixDiagPeer)
	ne.PutUint32(attr[4:], peer)
	m = append(m, attr...)
	sh := []byte{5, 0, unixDiagShutdwn, 0, shutdown, 0, 0, 0}
	return append(m, sh...)
}

func TestParseUnixDiag(t *testing.T) {
	s, ok := parseUnixDiag(diagMsg(4242, 4243, 3))
	if !ok || s.ino != 4242 || s.peer != 4243 || s.shutdown != 3 {
		t.Errorf("parseUnixDiag: %+v, %v; want inode 4242, peer 4243, shutdown 3", s, ok)
	}
	// No shutdown attribute (a kernel before 3.3): not known.
	if _, ok := parseUnixDiag(diagMsg(1, 2, 0)[:unixDiagMsgLen+8]); ok {
		t.Error("a reply without UNIX_DIAG_SHUTDOWN read as known")
	}
	for _, bad := range [][]byte{nil, make([]byte, 15), append(diagMsg(1, 2, 0)[:unixDiagMsgLen], 200, 0, 6, 0)} {
		if _, ok := parseUnixDiag(bad); ok {
			t.Errorf("parseUnixDiag(%x) read as known", bad)
		}
	}
}

func FuzzParseUnixDiag(f *testing.F) {
	f.Add(diagMsg(4242, 4243, 3))
	f.Add(diagMsg(1, 0, 1)[:unixDiagMsgLen+4])
	f.Fuzz(func(t *testing.T, m []byte) {
		s, ok := parseUnixDiag(m)
		if ok && len(m) < unixDiagMsgLen {
			t.Errorf("%x: known from %d bytes", m, len(m))
		}
		_ = s
	})
}
