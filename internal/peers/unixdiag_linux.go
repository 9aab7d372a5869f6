package peers

import (
	"encoding/binary"
	"syscall"

	"golang.org/x/sys/unix"
)

// The kernel's unix_diag structures (linux/unix_diag.h), which x/sys
// does not carry: unix_diag_req is 24 bytes, unix_diag_msg 16.
const (
	unixDiagReqLen  = 24
	unixDiagMsgLen  = 16
	udiagShowPeer   = 0x4
	unixDiagPeer    = 2
	unixDiagShutdwn = 6
	rcvShutdown     = 1 // the peer will send nothing more
	sendShutdown    = 2 // the peer reads nothing more
	noCookie        = ^uint32(0)
)

// socketState is what unix_diag tells of one socket.
type socketState struct {
	ino      uint64
	peer     uint64
	shutdown uint8
}

// unixSocket asks unix_diag for the Unix socket with inode ino, in this
// process's network namespace. ok is false where it is not one of them
// or cannot be asked.
func unixSocket(ino uint64) (socketState, bool) {
	if ino > uint64(^uint32(0)) {
		return socketState{}, false
	}
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, unix.NETLINK_SOCK_DIAG)
	if err != nil {
		return socketState{}, false
	}
	defer unix.Close(fd)
	req := make([]byte, unix.NLMSG_HDRLEN+unixDiagReqLen)
	ne := binary.NativeEndian
	ne.PutUint32(req[0:], uint32(len(req)))
	ne.PutUint16(req[4:], unix.SOCK_DIAG_BY_FAMILY)
	ne.PutUint16(req[6:], unix.NLM_F_REQUEST)
	ne.PutUint32(req[8:], 1)
	body := req[unix.NLMSG_HDRLEN:]
	body[0] = unix.AF_UNIX
	ne.PutUint32(body[4:], ^uint32(0)) // every state
	ne.PutUint32(body[8:], uint32(ino))
	ne.PutUint32(body[12:], udiagShowPeer)
	ne.PutUint32(body[16:], noCookie)
	ne.PutUint32(body[20:], noCookie)
	if err := unix.Sendto(fd, req, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return socketState{}, false
	}
	buf := make([]byte, 8192)
	for {
		n, _, err := unix.Recvfrom(fd, buf, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return socketState{}, false
		}
		msgs, err := syscall.ParseNetlinkMessage(buf[:n])
		if err != nil || len(msgs) == 0 || msgs[0].Header.Type != unix.SOCK_DIAG_BY_FAMILY {
			return socketState{}, false // NLMSG_ERROR: ENOENT, no unix_diag
		}
		s, ok := parseUnixDiag(msgs[0].Data)
		return s, ok && s.ino == ino
	}
}

// parseUnixDiag reads a unix_diag_msg (family, type, state, pad, inode,
// cookie) and its attributes: the peer's inode and the shutdown state.
func parseUnixDiag(m []byte) (socketState, bool) {
	if len(m) < unixDiagMsgLen || m[0] != unix.AF_UNIX {
		return socketState{}, false
	}
	ne := binary.NativeEndian
	s := socketState{ino: uint64(ne.Uint32(m[4:8]))}
	shut := false
	for a := m[unixDiagMsgLen:]; len(a) >= 4; {
		l := int(ne.Uint16(a[0:2]))
		if l < 4 || l > len(a) {
			return socketState{}, false
		}
		switch v := a[4:l]; ne.Uint16(a[2:4]) {
		case unixDiagPeer:
			if len(v) >= 4 {
				s.peer = uint64(ne.Uint32(v))
			}
		case unixDiagShutdwn:
			if len(v) >= 1 {
				s.shutdown, shut = v[0], true
			}
		}
		a = a[min(len(a), (l+3)&^3):]
	}
	return s, shut
}
