package hosts

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"slices"
	"strings"
	"time"
)

// ErrNotFound is a name that neither /etc/hosts nor DNS knows.
var ErrNotFound = errors.New("no such host")

// Paths read, variables so that tests can point them elsewhere.
var (
	hostsFile  = "/etc/hosts"
	resolvConf = "/etc/resolv.conf"
)

// Resolve returns the addresses of host, IPv4 first: an IP address
// itself (IPv6 without its brackets), localhost's loopback addresses,
// else those /etc/hosts gives, else DNS's, each query given timeout.
// The error names the host and what failed; ErrNotFound (wrapped) when
// every source answered and none knew it.
func Resolve(host string, timeout time.Duration) ([]netip.Addr, error) {
	if a, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{a.Unmap()}, nil
	}
	if err := checkName(host); err != nil {
		return nil, err
	}
	name := strings.ToLower(strings.TrimSuffix(host, "."))
	if name == "localhost" || strings.HasSuffix(name, ".localhost") {
		return []netip.Addr{netip.AddrFrom4([4]byte{127, 0, 0, 1}), netip.IPv6Loopback()}, nil
	}
	if as := fromHostsFile(name); len(as) > 0 {
		return as, nil
	}
	as, err := fromDNS(name, timeout)
	if err != nil {
		return nil, fmt.Errorf("look up host %q: %w", host, err)
	}
	return as, nil
}

// Check reports a host that is neither an IP address nor a host name as
// DNS spells one, naming it: what Resolve refuses before it looks.
func Check(host string) error {
	if _, err := netip.ParseAddr(host); err == nil {
		return nil
	}
	return checkName(host)
}

// checkName accepts a host name as DNS spells one: labels of letters,
// digits, '-' and '_' (service names), 1 to 63 bytes each, 253 in all.
func checkName(host string) error {
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

// fromHostsFile is /etc/hosts' addresses for name (any of a line's
// names, case folded), IPv4 first.
func fromHostsFile(name string) []netip.Addr {
	data, err := os.ReadFile(hostsFile)
	if err != nil {
		return nil
	}
	return parseHosts(data, name)
}

func parseHosts(data []byte, name string) []netip.Addr {
	var out []netip.Addr
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "#")
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		a, err := netip.ParseAddr(f[0])
		if err != nil {
			continue
		}
		a = a.WithZone("").Unmap()
		for _, n := range f[1:] {
			if strings.EqualFold(strings.TrimSuffix(n, "."), name) && !slices.Contains(out, a) {
				out = append(out, a)
			}
		}
	}
	sortAddrs(out)
	return out
}

// sortAddrs puts IPv4 first, each family in the order given.
func sortAddrs(as []netip.Addr) {
	slices.SortStableFunc(as, func(a, b netip.Addr) int {
		switch {
		case a.Is4() && !b.Is4():
			return -1
		case !a.Is4() && b.Is4():
			return 1
		}
		return 0
	})
}
