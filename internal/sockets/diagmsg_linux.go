package sockets

import (
	"encoding/binary"
	"net/netip"

	"golang.org/x/sys/unix"
)

// parseDiagMsg reads an inet_diag_msg: family, state, timer, retrans; the
// socket id (source port and address first, big-endian); expires, queues;
// uid and inode.
func parseDiagMsg(m []byte, proto string) (Listener, bool) {
	if len(m) < diagMsgLen {
		return Listener{}, false
	}
	l := Listener{Proto: proto, Port: binary.BigEndian.Uint16(m[4:6])}
	switch m[0] {
	case unix.AF_INET:
		l.Addr = netip.AddrFrom4([4]byte(m[8:12]))
	case unix.AF_INET6:
		l.Addr = netip.AddrFrom16([16]byte(m[8:24])).Unmap()
	default:
		return Listener{}, false
	}
	l.UID = int(binary.NativeEndian.Uint32(m[64:68]))
	l.Inode = uint64(binary.NativeEndian.Uint32(m[68:72]))
	return l, true
}
