package engines

import (
	"fmt"
	"net/netip"
	"os"
	"strconv"
	"strings"

	"github.com/tetherproc/tether/internal/proc"
	"github.com/tetherproc/tether/internal/sockets"
)

// listening lists the ports process pid serves: the listening TCP and
// unconnected UDP sockets among its descriptors, read from the tables of
// every network namespace its threads are in. A helper's threads need
// not share one: rootlessport's main thread sits in the container's
// namespace while another holds the published ports in the host's.
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
	if len(inodes) == 0 {
		return nil, nil
	}
	var out []held
	for _, where := range namespaceDirs(fs, pid) {
		for _, table := range []string{"tcp", "tcp6", "udp", "udp6"} {
			data, err := os.ReadFile(fs.Path(pid, where+"net/"+table))
			if err != nil {
				if os.IsNotExist(err) {
					continue
				}
				return nil, err
			}
			socks, err := sockets.ParseNetTable(data)
			if err != nil {
				return nil, err
			}
			proto, state := "tcp", uint8(sockets.TCPListen)
			if strings.HasPrefix(table, "udp") {
				proto, state = "udp", sockets.UDPUnconnected
			}
			for _, s := range socks {
				if s.State == state && inodes[s.Inode] {
					out = append(out, held{proto: proto, addr: s.Addr, port: int(s.Port)})
					delete(inodes, s.Inode)
				}
			}
		}
	}
	return out, nil
}

// namespaceDirs are the directories, relative to pid's, of one thread in
// each network namespace pid's threads are in ("task/TID/"), the main
// thread's first; just pid's own ("") where threads cannot be told
// apart.
func namespaceDirs(fs proc.FS, pid int) []string {
	tasks, err := os.ReadDir(fs.Path(pid, "task"))
	if err != nil {
		return []string{""}
	}
	seen := map[string]bool{}
	var out []string
	for _, t := range tasks {
		dir := "task/" + t.Name() + "/"
		ns, err := os.Readlink(fs.Path(pid, dir+"ns/net"))
		if err != nil || seen[ns] {
			continue
		}
		seen[ns] = true
		if t.Name() == strconv.Itoa(pid) {
			out = append([]string{dir}, out...)
		} else {
			out = append(out, dir)
		}
	}
	if len(out) == 0 {
		return []string{""}
	}
	return out
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
