package sockets

import (
	"encoding/binary"
	"errors"
	"net/netip"
)

// On macOS libproc answers a port lookup without netstat or lsof
// (libproc.go): proc_pidinfo's PROC_PIDLISTFDS lists a process's
// descriptors, and proc_pidfdinfo's PROC_PIDFDSOCKETINFO describes one
// socket. The parsers of its answers (this file's, fdlist.go's and
// pidlist.go's) are in no build file of their own, so that they are
// tested everywhere against byte fixtures laid out as XNU lays them out
// (testdata/).
//
// Layouts and values from apple-oss-distributions/xnu, tag
// xnu-11417.101.15 (the same in apple/darwin-xnu xnu-7195.121.3):
// bsd/sys/proc_info.h (struct proc_fdinfo, struct socket_fdinfo, struct
// socket_info, struct in_sockinfo, struct tcp_sockinfo, PROX_FDTYPE_*,
// SOCKINFO_*, INI_*, TSI_S_*), bsd/kern/proc_info.c (what each call
// answers), bsd/kern/socket_info.c (how the fields are filled).
// Both darwin/amd64 and darwin/arm64 are LP64 and little-endian, with the
// same offsets.
const (
	procAllPIDs         = 1   // PROC_ALL_PIDS
	procPIDListFDs      = 1   // PROC_PIDLISTFDS
	procPIDFDSocketInfo = 3   // PROC_PIDFDSOCKETINFO
	proxFDTypeSocket    = 2   // PROX_FDTYPE_SOCKET
	fdInfoSize          = 8   // sizeof(struct proc_fdinfo)
	socketFDInfoSize    = 792 // sizeof(struct socket_fdinfo)
	sockInfoIn          = 1   // SOCKINFO_IN
	sockInfoTCP         = 2   // SOCKINFO_TCP
	iniIPv4             = 0x1 // INI_IPV4
	iniIPv6             = 0x2 // INI_IPV6
	tsiStateListen      = 1   // TSI_S_LISTEN
	darwinAFInet        = 2
	darwinAFInet6       = 30
	darwinSockStream    = 1
	darwinSockDgram     = 2
)

// Offsets in struct socket_fdinfo (pfi, a struct proc_fileinfo of 24
// bytes, then psi, a struct socket_info).
const (
	offSoSocket = 24 + 136 // psi.soi_so, the kernel's socket: its identity
	offSoType   = 24 + 152 // psi.soi_type
	offSoFamily = 24 + 160 // psi.soi_family
	offSoKind   = 24 + 232 // psi.soi_kind
	offInFPort  = 264      // psi.soi_proto.pri_in.insi_fport (or pri_tcp.tcpsi_ini's)
	offInLPort  = 268      // insi_lport: a network-order u_short in an int
	offInVFlag  = 288      // insi_vflag
	offInFAddr  = 296      // insi_faddr: 16 bytes, IPv4 in the last 4
	offInLAddr  = 312      // insi_laddr
	offTCPState = 344      // psi.soi_proto.pri_tcp.tcpsi_state
)

// darwinSocket is what tether reads of one struct socket_fdinfo.
type darwinSocket struct {
	id       uint64 // soi_so, the kernel's socket (as its address, permuted)
	listener bool   // a listening TCP socket, or a UDP socket with a local port and no peer
	Listener
}

var errShortSocketInfo = errors.New("proc_pidfdinfo(PROC_PIDFDSOCKETINFO): short answer")

// parseSocketInfo parses the answer of PROC_PIDFDSOCKETINFO. Only IPv4
// and IPv6 sockets of kind SOCKINFO_IN or SOCKINFO_TCP can be listeners:
// a TCP socket in TSI_S_LISTEN, or a UDP socket bound to a port and not
// connected (no foreign port).
func parseSocketInfo(b []byte) (darwinSocket, error) {
	if len(b) < socketFDInfoSize {
		return darwinSocket{}, errShortSocketInfo
	}
	le := binary.LittleEndian
	// The top bit is lsofKey's: a socket's key never has it.
	s := darwinSocket{id: le.Uint64(b[offSoSocket:]) &^ (1 << 63)}
	kind := int32(le.Uint32(b[offSoKind:]))
	family := int32(le.Uint32(b[offSoFamily:]))
	typ := int32(le.Uint32(b[offSoType:]))
	if (kind != sockInfoIn && kind != sockInfoTCP) || (family != darwinAFInet && family != darwinAFInet6) {
		return s, nil
	}
	// The ports are network-order shorts, copied into ints.
	lport := binary.BigEndian.Uint16(b[offInLPort:])
	fport := binary.BigEndian.Uint16(b[offInFPort:])
	// The owner (UID) is the holder's, for the caller to fill in: the
	// kernel leaves soi_stat zero (bsd/kern/socket_info.c).
	s.Listener = Listener{Addr: inAddr(b[offInLAddr:offInLAddr+16], b[offInVFlag], family), Port: lport, Inode: s.id}
	switch {
	case kind == sockInfoTCP && typ == darwinSockStream:
		s.Proto = "tcp"
		s.listener = int32(le.Uint32(b[offTCPState:])) == tsiStateListen && lport != 0
	case typ == darwinSockDgram:
		s.Proto = "udp"
		s.listener = lport != 0 && fport == 0
	}
	return s, nil
}

// inAddr reads an in_sockinfo address: IPv4 in the last four of its 16
// bytes (struct in4in6_addr) for an AF_INET socket, or for an AF_INET6
// one that is IPv4 only (a v4-mapped address); else all 16 as IPv6. A
// dual-stack socket bound to :: (both flags set) reads as ::.
func inAddr(b []byte, vflag byte, family int32) netip.Addr {
	if family == darwinAFInet || vflag&(iniIPv4|iniIPv6) == iniIPv4 {
		return netip.AddrFrom4([4]byte(b[12:16]))
	}
	return netip.AddrFrom16([16]byte(b[:16]))
}
