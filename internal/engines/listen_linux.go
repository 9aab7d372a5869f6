package engines

import (
	"fmt"
	"net/netip"
	"os"
	"strconv"
	"strings"

	"github.com/tetherproc/tether/internal/proc"
)

// listening lists the ports process pid serves: the listening TCP and
// unconnected UDP sockets among its descriptors, read from its own
// network namespace's tables (a proxy's is the host's, where it holds
// the published ports).
func listening(fs proc.FS, pid int) ([]held, error) {
	dir := fs.Path(pid, "fd")
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	inodes := map[uint64]bool{}
	for _, e := range entries {
		link, err := os.Readlink(dir + "/" + e.Name())
		if err != nil {
			continue
		}
		if s, ok := strings.CutPrefix(link, "socket:["); ok {
			if n, err := strconv.ParseUint(strings.TrimSuffix(s, "]"), 10, 64); err == nil {
				inodes[n] = true
			}
		}
	}
	var out []held
	for _, table := range []string{"tcp", "tcp6", "udp", "udp6"} {
		data, err := os.ReadFile(fs.Path(pid, "net/"+table))
		if err != nil {
			if os.IsNotExist(err) {
				continue
			}
			return nil, err
		}
		socks, err := proc.ParseNetTable(data)
		if err != nil {
			return nil, err
		}
		proto, state := "tcp", uint8(proc.TCPListen)
		if strings.HasPrefix(table, "udp") {
			proto, state = "udp", proc.UDPUnconnected
		}
		for _, s := range socks {
			if s.State == state && inodes[s.Inode] {
				out = append(out, held{proto: proto, addr: s.Addr, port: int(s.Port)})
			}
		}
	}
	return out, nil
}

// held is a port a process serves: a listening TCP socket, or a bound
// and unconnected UDP one.
type held struct {
	proto string // "tcp" or "udp"
	addr  netip.Addr
	port  int
}

func (h held) String() string {
	return h.proto + " " + netip.AddrPortFrom(h.addr, uint16(h.port)).String()
}

// matchPorts finds the container that publishes the ports a proxy holds
// (rootlessport, which serves one container).
func matchPorts(list []listed, ports []held) (listed, error) {
	var found []listed
	for _, c := range list {
	entries:
		for _, port := range c.Ports {
			for _, h := range ports {
				if port.Type == h.proto && port.PublicPort == h.port && sameHostIP(port.IP, h.addr.String()) {
					found = append(found, c)
					break entries
				}
			}
		}
	}
	var held []string
	for _, h := range ports {
		held = append(held, h.String())
	}
	switch len(found) {
	case 0:
		return listed{}, fmt.Errorf("no running container publishes %s", strings.Join(held, ", "))
	case 1:
		return found[0], nil
	}
	return listed{}, fmt.Errorf("%d running containers publish %s: %s", len(found), strings.Join(held, ", "), names(found))
}
