package sockets

import (
	"github.com/tetherproc/tether/internal/proc"
)

// listeners returns the sockets that serve a port (listening TCP,
// unconnected UDP), by inode; with ports given, only those ports. A
// connected client's socket is not a listener, whatever its local port.
// It asks sock_diag netlink, and reads the net tables of /proc where that
// is not to be had.
func listeners(ports map[uint16]bool) (map[uint64]Listener, error) {
	if ls, err := diagListeners(ports); err == nil {
		return ls, nil
	}
	return tableListeners(ports)
}

// tableListeners is listeners from /proc/net/{tcp,tcp6,udp,udp6}.
func tableListeners(ports map[uint16]bool) (map[uint64]Listener, error) {
	out := map[uint64]Listener{}
	for _, t := range []struct{ name, proto string }{{"tcp", "tcp"}, {"tcp6", "tcp"}, {"udp", "udp"}, {"udp6", "udp"}} {
		socks, err := NetTable(proc.Host(), t.name)
		if err != nil {
			return nil, err
		}
		for _, s := range socks {
			serving := (t.proto == "tcp" && s.State == TCPListen) || (t.proto == "udp" && s.State == UDPUnconnected)
			if !serving || s.Inode == 0 || (ports != nil && !ports[s.Port]) {
				continue
			}
			out[s.Inode] = Listener{Proto: t.proto, Addr: s.Addr.Unmap(), Port: s.Port, UID: s.UID, Inode: s.Inode}
		}
	}
	return out, nil
}

// holders finds the processes that hold the listeners: every process's,
// or only those of pids when given.
func holders(ls map[uint64]Listener, pids []int) ([]Holder, error) {
	if len(ls) == 0 || (pids != nil && len(pids) == 0) {
		return nil, nil
	}
	inodes := make(map[uint64]bool, len(ls))
	for ino := range ls {
		inodes[ino] = true
	}
	held, err := SocketHolders(proc.Host(), inodes, pids)
	if err != nil {
		return nil, err
	}
	var out []Holder
	for pid, inos := range held {
		for _, ino := range inos {
			out = append(out, Holder{PID: pid, Listener: ls[ino]})
		}
	}
	return out, nil
}
