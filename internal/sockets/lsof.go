package sockets

import (
	"bytes"
	"net/netip"
	"strconv"
	"strings"
)

// lsofKey is the key of a listener found by lsof, which names no socket:
// the holding process and descriptor, marked by the top bit so that no
// kernel socket address is taken for one.
func lsofKey(pid, fd int) uint64 { return 1<<63 | uint64(pid)<<20 | uint64(fd)&0xfffff }

// lsofHolder is the PID a key of lsofKey names; ok is false for any other key.
func lsofHolder(key uint64) (pid int, ok bool) {
	if key&(1<<63) == 0 {
		return 0, false
	}
	return int(key >> 20 & 0x7fffffffff), true
}

// parseLsof parses lsof's field output (-F pcfunt) of listening or bound
// sockets of proto: "p" starts a process, "u" its uid, "f" a descriptor,
// "t" its type (IPv4, IPv6), "n" its local address ("*:8080", "127.0.0.1:8080",
// "[::1]:8080"); a name with "->" has a peer and serves nothing. It is
// the fallback where macOS's libproc refuses the lookup; never the
// columns of netstat, which change between releases.
func parseLsof(out []byte, proto string) map[uint64]Listener {
	ls := map[uint64]Listener{}
	pid, uid, fd, v6 := 0, -1, -1, false
	for _, line := range bytes.Split(out, []byte{'\n'}) {
		if len(line) < 2 {
			continue
		}
		v := string(line[1:])
		switch line[0] {
		case 'p':
			pid, _ = strconv.Atoi(v)
			uid, fd = -1, -1
		case 'u':
			uid, _ = strconv.Atoi(v)
		case 'f':
			n, err := strconv.Atoi(v)
			if err != nil {
				n = -1 // cwd, txt: not a socket
			}
			fd, v6 = n, false
		case 't':
			v6 = v == "IPv6"
		case 'n':
			if pid <= 0 || fd < 0 || strings.Contains(v, "->") {
				continue
			}
			if l, ok := lsofAddr(v, v6); ok {
				l.Proto, l.UID = proto, uid
				key := lsofKey(pid, fd)
				l.Inode = key
				ls[key] = l
			}
		}
	}
	return ls
}

// lsofAddr reads lsof's local address: host:port, the host "*" for all
// of them (of IPv6 when the descriptor's type says so), an IPv6 host in
// brackets.
func lsofAddr(v string, v6 bool) (Listener, bool) {
	i := strings.LastIndexByte(v, ':')
	if i < 0 {
		return Listener{}, false
	}
	host, portText := v[:i], v[i+1:]
	port, err := strconv.ParseUint(portText, 10, 16)
	if err != nil || port == 0 {
		return Listener{}, false
	}
	var addr netip.Addr
	switch {
	case host == "*" && v6:
		addr = netip.IPv6Unspecified()
	case host == "*":
		addr = netip.IPv4Unspecified()
	case strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]"):
		addr, err = netip.ParseAddr(host[1 : len(host)-1])
	default:
		addr, err = netip.ParseAddr(host)
	}
	if err != nil {
		return Listener{}, false
	}
	return Listener{Addr: addr.Unmap(), Port: uint16(port)}, true
}
