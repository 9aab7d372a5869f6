package readiness

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strings"
	"time"
)

// resolver looks up every name a wait is given, the hosts of URLs
// included (the transport's dialer uses it). Go's own resolver, as every
// build is without cgo: /etc/hosts, then the servers, search domains and
// ndots of /etc/resolv.conf, a truncated answer asked again over TCP. A
// variable so that the tests can send its queries to a server of their
// own.
var resolver = net.DefaultResolver

// CheckHost reports a host that is neither an IP address nor a host name
// as DNS spells one, naming it: a mistake said at once rather than a
// lookup that fails at every check of a wait.
func CheckHost(host string) error {
	if _, err := netip.ParseAddr(host); err == nil {
		return nil
	}
	name := strings.TrimSuffix(host, ".")
	if name == "" || len(name) > 253 {
		return fmt.Errorf("invalid host %q: not an IP address or a host name", host)
	}
	for _, label := range strings.Split(name, ".") {
		if label == "" || len(label) > 63 {
			return fmt.Errorf("invalid host %q: not an IP address or a host name", host)
		}
		for _, c := range []byte(label) {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return fmt.Errorf("invalid host %q: %q is not allowed in a host name", host, c)
			}
		}
	}
	return nil
}

// LookupHost returns the addresses of host, IPv4 first, within timeout:
// an IP address itself, localhost (and any name under it, RFC 6761) the
// loopback addresses without a lookup, else the resolver's answer. The
// error names the host; it is a *net.DNSError whose IsNotFound says that
// every source answered and none knew it.
func LookupHost(host string, timeout time.Duration) ([]netip.Addr, error) {
	if a, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{a.Unmap()}, nil
	}
	if err := CheckHost(host); err != nil {
		return nil, err
	}
	if isLocalhost(host) {
		return []netip.Addr{netip.AddrFrom4([4]byte{127, 0, 0, 1}), netip.IPv6Loopback()}, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	as, err := resolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return nil, err
	}
	var out []netip.Addr
	for _, a := range as {
		if a = a.WithZone("").Unmap(); !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	// IPv4 first, each family in the resolver's order.
	slices.SortStableFunc(out, func(a, b netip.Addr) int {
		switch {
		case a.Is4() && !b.Is4():
			return -1
		case !a.Is4() && b.Is4():
			return 1
		}
		return 0
	})
	return out, nil
}

// isLocalhost reports whether host is localhost or a name under it,
// which are this machine's loopback addresses (RFC 6761) with or without
// a final dot: Go's resolver finds "localhost" in /etc/hosts but not
// "localhost.", and asks DNS, where it is unknown.
func isLocalhost(host string) bool {
	name := strings.ToLower(strings.TrimSuffix(host, "."))
	return name == "localhost" || strings.HasSuffix(name, ".localhost")
}

// notFound reports whether err says that a name is known nowhere, as
// against a lookup that could not be made (no server answered).
func notFound(err error) bool {
	var dns *net.DNSError
	return errors.As(err, &dns) && dns.IsNotFound
}

// LocalHost reports whether host names this machine: every address it
// has is a loopback or wildcard address or one of this machine's
// interfaces' (a port there is one of this machine's sockets). A name
// that cannot be looked up within timeout is not.
func LocalHost(host string, timeout time.Duration) bool {
	addrs, err := LookupHost(host, timeout)
	if err != nil || len(addrs) == 0 {
		return false
	}
	var mine []netip.Addr
	if ifs, err := net.InterfaceAddrs(); err == nil {
		for _, ia := range ifs {
			if p, err := netip.ParsePrefix(ia.String()); err == nil {
				mine = append(mine, p.Addr().WithZone("").Unmap())
			}
		}
	}
	for _, a := range addrs {
		if !a.IsLoopback() && !a.IsUnspecified() && !slices.Contains(mine, a) {
			return false
		}
	}
	return true
}
