package sockets

import (
	"bytes"
	"encoding/hex"
	"net/netip"
	"slices"
)

// ParseFibTrie reads /proc/PID/net/fib_trie and returns the IPv4
// addresses local to that network namespace: the leaves marked
// "/32 host LOCAL". Each is listed once, in order, though the kernel
// shows the local table twice (Main and Local). A loopback address is
// one too.
func ParseFibTrie(data []byte) []netip.Addr {
	var out []netip.Addr
	var last netip.Addr
	for _, line := range bytes.Split(data, []byte{'\n'}) {
		line = bytes.TrimSpace(line)
		if leaf, ok := bytes.CutPrefix(line, []byte("|-- ")); ok {
			last, _ = netip.ParseAddr(string(leaf))
			continue
		}
		if last.Is4() && bytes.Equal(line, []byte("/32 host LOCAL")) && !slices.Contains(out, last) {
			out = append(out, last)
		}
		last = netip.Addr{}
	}
	return out
}

// ParseIfInet6 reads /proc/PID/net/if_inet6 and returns the IPv6
// addresses of that network namespace's interfaces: the first field of
// each line, 32 hex digits.
func ParseIfInet6(data []byte) []netip.Addr {
	var out []netip.Addr
	for _, line := range bytes.Split(data, []byte{'\n'}) {
		f := bytes.Fields(line)
		if len(f) == 0 || len(f[0]) != 32 {
			continue
		}
		var b [16]byte
		if _, err := hex.Decode(b[:], f[0]); err != nil {
			continue
		}
		if a := netip.AddrFrom16(b); !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	return out
}
