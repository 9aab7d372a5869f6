package sockets

import (
	"encoding/binary"
	"fmt"
	"syscall"

	"golang.org/x/sys/unix"
)

// The kernel's sock_diag structures (linux/inet_diag.h), which x/sys does
// not carry: inet_diag_req_v2 is 56 bytes, inet_diag_msg 72.
const (
	diagReqLen        = 56
	diagMsgLen        = 72
	tcpListenBit      = 1 << TCPListen
	udpUnconnectedBit = 1 << UDPUnconnected
)

// diagListeners asks the kernel through sock_diag netlink for the sockets
// that serve a port: listening TCP and unconnected UDP, IPv4 and IPv6.
// Unlike /proc/net/tcp, whose read walks the whole established-connection
// hash (milliseconds on a large machine, whatever it holds), a dump of
// listening sockets walks only the listening hash.
func diagListeners(ports map[uint16]bool) (map[uint64]Listener, error) {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, unix.NETLINK_SOCK_DIAG)
	if err != nil {
		return nil, fmt.Errorf("sock_diag socket: %w", err)
	}
	defer unix.Close(fd)
	out := map[uint64]Listener{}
	queries := []struct {
		family uint8
		proto  uint8
		states uint32
		name   string
	}{
		{unix.AF_INET, unix.IPPROTO_TCP, tcpListenBit, "tcp"},
		{unix.AF_INET6, unix.IPPROTO_TCP, tcpListenBit, "tcp"},
		{unix.AF_INET, unix.IPPROTO_UDP, udpUnconnectedBit, "udp"},
		{unix.AF_INET6, unix.IPPROTO_UDP, udpUnconnectedBit, "udp"},
	}
	buf := make([]byte, 32<<10)
	for i, q := range queries {
		if err := diagDump(fd, uint32(i+1), q.family, q.proto, q.states, buf, func(m []byte) {
			l, ok := parseDiagMsg(m, q.name)
			if ok && l.Inode != 0 && (ports == nil || ports[l.Port]) {
				out[l.Inode] = l
			}
		}); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func diagDump(fd int, seq uint32, family, proto uint8, states uint32, buf []byte, each func([]byte)) error {
	req := make([]byte, unix.NLMSG_HDRLEN+diagReqLen)
	ne := binary.NativeEndian
	ne.PutUint32(req[0:], uint32(len(req)))
	ne.PutUint16(req[4:], unix.SOCK_DIAG_BY_FAMILY)
	ne.PutUint16(req[6:], unix.NLM_F_REQUEST|unix.NLM_F_DUMP)
	ne.PutUint32(req[8:], seq)
	body := req[unix.NLMSG_HDRLEN:]
	body[0], body[1] = family, proto
	ne.PutUint32(body[4:], states)
	if err := unix.Sendto(fd, req, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return fmt.Errorf("sock_diag request: %w", err)
	}
	for {
		n, _, err := unix.Recvfrom(fd, buf, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return fmt.Errorf("sock_diag reply: %w", err)
		}
		msgs, err := syscall.ParseNetlinkMessage(buf[:n])
		if err != nil {
			return fmt.Errorf("sock_diag reply: %w", err)
		}
		for _, m := range msgs {
			switch m.Header.Type {
			case unix.NLMSG_DONE:
				return nil
			case unix.NLMSG_ERROR:
				if len(m.Data) >= 4 {
					if errno := int32(ne.Uint32(m.Data)); errno != 0 {
						return fmt.Errorf("sock_diag: %w", syscall.Errno(-errno))
					}
				}
				return nil
			default:
				each(m.Data)
			}
		}
	}
}
