package sockets

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"net/netip"
	"os"
	"strconv"

	"github.com/tetherproc/tether/internal/proc"
)

// NetTable reads and parses net/NAME of the table (tcp, tcp6, udp or
// udp6): the sockets of the reader's network namespace. A table the
// kernel does not have (no IPv6) reads as empty.
func NetTable(fs proc.FS, name string) ([]Socket, error) {
	path := fs.Root() + "/net/" + name
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	socks, err := ParseNetTable(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return socks, nil
}

// ParseNetTable parses a /proc/net/{tcp,tcp6,udp,udp6} table. Addresses are
// hex, each 32-bit word in host byte order (0100007F is 127.0.0.1 on a
// little-endian machine); the port is big-endian hex.
func ParseNetTable(data []byte) ([]Socket, error) {
	lines := bytes.Split(data, []byte{'\n'})
	if len(lines) == 0 || !bytes.Contains(lines[0], []byte("local_address")) {
		return nil, fmt.Errorf("parse net table: no header line")
	}
	var out []Socket
	for i, line := range lines[1:] {
		f := bytes.Fields(line)
		if len(f) == 0 {
			continue
		}
		if len(f) < 10 {
			return out, fmt.Errorf("parse net table: line %d: %d fields, want at least 10", i+2, len(f))
		}
		s, err := parseSocket(f)
		if err != nil {
			return out, fmt.Errorf("parse net table: line %d: %w", i+2, err)
		}
		out = append(out, s)
	}
	return out, nil
}

func parseSocket(f [][]byte) (Socket, error) {
	var s Socket
	addr, port, ok := bytes.Cut(f[1], []byte{':'})
	if !ok {
		return s, fmt.Errorf("local address %q: no port", f[1])
	}
	var err error
	if s.Addr, err = parseHexAddr(addr); err != nil {
		return s, err
	}
	p, err := strconv.ParseUint(string(port), 16, 16)
	if err != nil {
		return s, fmt.Errorf("port %q: %w", port, err)
	}
	s.Port = uint16(p)
	st, err := strconv.ParseUint(string(f[3]), 16, 8)
	if err != nil {
		return s, fmt.Errorf("state %q: %w", f[3], err)
	}
	s.State = uint8(st)
	if s.UID, err = strconv.Atoi(string(f[7])); err != nil {
		return s, fmt.Errorf("uid %q: %w", f[7], err)
	}
	if s.Inode, err = strconv.ParseUint(string(f[9]), 10, 64); err != nil {
		return s, fmt.Errorf("inode %q: %w", f[9], err)
	}
	return s, nil
}

func parseHexAddr(h []byte) (netip.Addr, error) {
	if len(h) != 8 && len(h) != 32 {
		return netip.Addr{}, fmt.Errorf("address %q: want 8 or 32 hex digits", h)
	}
	raw := make([]byte, len(h)/2)
	if _, err := hex.Decode(raw, h); err != nil {
		return netip.Addr{}, fmt.Errorf("address %q: %w", h, err)
	}
	// Each 32-bit word was printed as a host-endian integer.
	for i := 0; i < len(raw); i += 4 {
		binary.BigEndian.PutUint32(raw[i:], binary.NativeEndian.Uint32(raw[i:]))
	}
	if len(raw) == 4 {
		return netip.AddrFrom4([4]byte(raw)), nil
	}
	return netip.AddrFrom16([16]byte(raw)), nil
}
