package hosts

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"time"
)

// resolver is what /etc/resolv.conf says: where to ask, and which names
// to try for a short one.
type resolver struct {
	servers []netip.AddrPort
	search  []string
	ndots   int
}

// readResolvConf reads resolvConf; where it is missing or names no
// server, the local one is asked, as the C library does.
func readResolvConf() resolver {
	r := resolver{ndots: 1}
	if data, err := os.ReadFile(resolvConf); err == nil {
		r = parseResolvConf(data)
	}
	if len(r.servers) == 0 {
		r.servers = []netip.AddrPort{netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 0, 0, 1}), 53)}
	}
	return r
}

func parseResolvConf(data []byte) resolver {
	r := resolver{ndots: 1}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 2 || strings.HasPrefix(f[0], "#") || strings.HasPrefix(f[0], ";") {
			continue
		}
		switch f[0] {
		case "nameserver":
			if a, err := netip.ParseAddr(f[1]); err == nil && len(r.servers) < 3 {
				r.servers = append(r.servers, netip.AddrPortFrom(a.WithZone("").Unmap(), 53))
			}
		case "search", "domain":
			r.search = nil
			for _, d := range f[1:] {
				r.search = append(r.search, strings.TrimSuffix(d, "."))
			}
		case "options":
			for _, o := range f[1:] {
				if v, ok := strings.CutPrefix(o, "ndots:"); ok {
					if n, err := strconv.Atoi(v); err == nil && n >= 0 {
						r.ndots = min(n, 15)
					}
				}
			}
		}
	}
	return r
}

// names are the names to ask for, in order: a name with ndots dots or
// more as given first, else after the search domains.
func (r resolver) names(name string) []string {
	var with []string
	for _, d := range r.search {
		if d != "" {
			with = append(with, name+"."+d)
		}
	}
	if strings.HasSuffix(name, ".") || strings.Count(name, ".") >= r.ndots {
		return append([]string{name}, with...)
	}
	return append(with, name)
}

// fromDNS asks the nameservers for name's A and AAAA records: the
// first name of names that has any wins.
func fromDNS(name string, timeout time.Duration) ([]netip.Addr, error) {
	r := readResolvConf()
	var lastErr error
	for _, n := range r.names(name) {
		var out []netip.Addr
		answered := false
		for _, qtype := range []uint16{typeA, typeAAAA} {
			as, err := r.ask(n, qtype, timeout)
			if err != nil {
				if !errors.Is(err, ErrNotFound) {
					lastErr = err
				}
				continue
			}
			answered = true
			out = append(out, as...)
		}
		if len(out) > 0 {
			sortAddrs(out)
			return out, nil
		}
		if answered && lastErr == nil {
			lastErr = ErrNotFound
		}
	}
	if lastErr == nil {
		lastErr = ErrNotFound
	}
	return nil, lastErr
}

// ask asks each server in turn until one answers.
func (r resolver) ask(name string, qtype uint16, timeout time.Duration) ([]netip.Addr, error) {
	q, id, err := query(name, qtype)
	if err != nil {
		return nil, err
	}
	var lastErr error
	for _, s := range r.servers {
		ans, err := exchangeUDP(netip.AddrPortFrom(s.Addr(), exchangePort), q, time.Now().Add(timeout))
		if err != nil {
			lastErr = fmt.Errorf("nameserver %v: %w", s.Addr(), err)
			continue
		}
		as, err := parseAnswer(ans, id, qtype)
		if err != nil && !errors.Is(err, ErrNotFound) {
			lastErr = fmt.Errorf("nameserver %v: %w", s.Addr(), err)
			continue
		}
		return as, err
	}
	return nil, lastErr
}

// exchangePort is the port nameservers are asked on (a test's own
// server listens elsewhere).
var exchangePort uint16 = 53

const (
	typeA    = 1
	typeAAAA = 28
)

// query is a DNS question for name of type qtype, recursion desired.
func query(name string, qtype uint16) ([]byte, uint16, error) {
	id := uint16(time.Now().UnixNano()>>7) ^ uint16(os.Getpid())
	b := binary.BigEndian.AppendUint16(nil, id)
	b = append(b, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0)
	for _, label := range strings.Split(strings.TrimSuffix(name, "."), ".") {
		if label == "" || len(label) > 63 {
			return nil, 0, fmt.Errorf("invalid host name %q", name)
		}
		b = append(b, byte(len(label)))
		b = append(b, label...)
	}
	b = append(b, 0)
	b = binary.BigEndian.AppendUint16(b, qtype)
	b = binary.BigEndian.AppendUint16(b, 1)
	return b, id, nil
}

var errShort = errors.New("a DNS answer cut short")

// parseAnswer reads the addresses of type qtype in a DNS answer to the
// question id; ErrNotFound for a name that does not exist or has none.
func parseAnswer(m []byte, id, qtype uint16) ([]netip.Addr, error) {
	if len(m) < 12 {
		return nil, errShort
	}
	if binary.BigEndian.Uint16(m) != id || m[2]&0x80 == 0 {
		return nil, errors.New("not the answer to the question asked")
	}
	switch rcode := m[3] & 0x0f; rcode {
	case 0:
	case 3:
		return nil, ErrNotFound
	default:
		return nil, fmt.Errorf("the server failed the query (rcode %d)", rcode)
	}
	if m[2]&0x02 != 0 {
		return nil, errors.New("a truncated DNS answer")
	}
	qd, an := int(binary.BigEndian.Uint16(m[4:])), int(binary.BigEndian.Uint16(m[6:]))
	off := 12
	var err error
	for range qd {
		if off, err = skipName(m, off); err != nil {
			return nil, err
		}
		off += 4
	}
	var out []netip.Addr
	for range an {
		if off, err = skipName(m, off); err != nil {
			return nil, err
		}
		if off+10 > len(m) {
			return nil, errShort
		}
		typ := binary.BigEndian.Uint16(m[off:])
		n := int(binary.BigEndian.Uint16(m[off+8:]))
		off += 10
		if off+n > len(m) {
			return nil, errShort
		}
		switch {
		case typ == qtype && typ == typeA && n == 4:
			out = append(out, netip.AddrFrom4([4]byte(m[off:off+4])))
		case typ == qtype && typ == typeAAAA && n == 16:
			out = append(out, netip.AddrFrom16([16]byte(m[off:off+16])).Unmap())
		}
		off += n
	}
	if len(out) == 0 {
		return nil, ErrNotFound
	}
	return out, nil
}

// skipName steps over a name at off: its labels, or a pointer that ends
// it.
func skipName(m []byte, off int) (int, error) {
	for {
		if off >= len(m) {
			return 0, errShort
		}
		l := int(m[off])
		switch {
		case l == 0:
			return off + 1, nil
		case l&0xc0 == 0xc0:
			if off+2 > len(m) {
				return 0, errShort
			}
			return off + 2, nil
		case l&0xc0 != 0:
			return 0, errors.New("a DNS answer with a bad label")
		}
		off += 1 + l
	}
}
