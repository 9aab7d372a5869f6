package engines

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// matchDockerProxy finds the container a docker-proxy serves among the
// running ones: the one that publishes its host port (protocol, port,
// address) to its container port. Where two could (the same port on
// two addresses, which two proxies serve), the container's address
// decides; a container no list entry publishes, whose address alone is
// the proxy's -container-ip, is taken last.
func matchDockerProxy(list []listed, p *Proxy) (listed, error) {
	var byPort, byBoth, byAddr []listed
	for _, c := range list {
		published := false
		for _, port := range c.Ports {
			if port.Type == p.Proto && port.PublicPort == p.HostPort && port.PrivatePort == p.ContainerPort && sameHostIP(port.IP, p.HostIP) {
				published = true
				break
			}
		}
		addressed := hasAddr(c, p.ContainerIP)
		switch {
		case published && addressed:
			byBoth = append(byBoth, c)
			byPort = append(byPort, c)
		case published:
			byPort = append(byPort, c)
		case addressed:
			byAddr = append(byAddr, c)
		}
	}
	what := fmt.Sprintf("%s %s (to %s)", p.Proto, hostPort(p.HostIP, p.HostPort),
		joinHostPort(p.ContainerIP, strconv.Itoa(p.ContainerPort)))
	for _, found := range [][]listed{byBoth, byPort, byAddr} {
		switch len(found) {
		case 0:
			continue
		case 1:
			return found[0], nil
		default:
			return listed{}, fmt.Errorf("%d running containers publish %s: %s", len(found), what, names(found))
		}
	}
	return listed{}, fmt.Errorf("no running container publishes %s", what)
}

// sameHostIP compares a host address as an engine lists it with one a
// proxy holds or was given: equal addresses, or both every address
// ("", 0.0.0.0, ::).
func sameHostIP(listed, proxy string) bool {
	a, aerr := netip.ParseAddr(listed)
	b, berr := netip.ParseAddr(proxy)
	anyA := listed == "" || aerr == nil && a.IsUnspecified()
	anyB := proxy == "" || berr == nil && b.IsUnspecified()
	if anyA || anyB {
		return anyA && anyB
	}
	return aerr == nil && berr == nil && a.Unmap() == b.Unmap()
}

// hasAddr reports whether one of the container's networks gives it ip.
func hasAddr(c listed, ip string) bool {
	want, err := netip.ParseAddr(ip)
	if err != nil {
		return false
	}
	for _, n := range c.NetworkSettings.Networks {
		for _, s := range []string{n.IPAddress, n.GlobalIPv6Address} {
			if a, err := netip.ParseAddr(s); err == nil && a == want {
				return true
			}
		}
	}
	return false
}

func hostPort(ip string, port int) string {
	if ip == "" {
		ip = "*"
	}
	return joinHostPort(ip, strconv.Itoa(port))
}

func names(list []listed) string {
	var out []string
	for _, c := range list {
		name := ShortID(c.ID)
		if len(c.Names) > 0 {
			name = strings.TrimPrefix(c.Names[0], "/")
		}
		out = append(out, name)
	}
	return strings.Join(out, ", ")
}

// joinHostPort is "host:port", "[v6]:port" for an IPv6 address.
func joinHostPort(host, port string) string {
	if strings.Contains(host, ":") {
		return "[" + host + "]:" + port
	}
	return host + ":" + port
}
